import { beforeAll, describe, expect, it, vi } from "vitest";
import { LeaderJobs } from "@/server/cluster/leader-jobs";
import { db } from "@/server/core/db";
import { startHistory } from "@/server/history/history-service";
import { type HourRow } from "@/server/history/rollup-math";
import { HOUR_MS, MINUTE_MS } from "@/server/minutes/minute-row";
import { pruneHistory } from "@/server/history/retention";
import { recomputeHours, upsertHourRows, upsertMinuteRows } from "@/server/history/rollup-store";
import { readMinutes } from "@/server/minutes/minute-store";
import { gpuUuid, makeReadMinute } from "@/server/testing/factories";
import { manualTimers } from "@/server/testing/manual-timers";
import { useTestDatabase } from "@/server/testing/test-db";

beforeAll(async () => {
  await useTestDatabase();
}, 60_000);

const DAY_MS = 24 * HOUR_MS;
const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const POLICY = { minuteDays: 30, hourDays: 365 };

const minuteRow = makeReadMinute;

function hourRow(uuid: string, at: number): HourRow {
  const { minute: _minute, busy: _busy, ...rest } = minuteRow(uuid, at);
  return { ...rest, hour: new Date(at), busyMinutes: 0 };
}

/** An hour of minutes of one GPU from `hourMs`, utilization rising minute by minute. */
const hourOfMinutes = (uuid: string, hourMs: number, count = 60) =>
  Array.from({ length: count }, (_, i) => minuteRow(uuid, hourMs + i * MINUTE_MS, { utilAvg: i, busy: i % 2 === 0 }));

const hourOf = (uuid: string, hourMs: number) => db().gpuHour.findUnique({ where: { gpuUuid_hour: { gpuUuid: uuid, hour: new Date(hourMs) } } });
const EVER = Date.UTC(2100, 0, 1);
const minutesOf = async (uuid: string) => (await readMinutes(db(), 0, EVER, [uuid])).length;

/** Leaves only some of a GPU-hour's stored minutes, as if the others had never been written or had been deleted one by one. */
async function keepMinutes(uuid: string, hourMs: number, keep: (minuteMs: number) => boolean): Promise<void> {
  const kept = (await readMinutes(db(), hourMs, hourMs + HOUR_MS, [uuid])).filter((row) => keep(row.minute.getTime()));
  await db().gpuMinuteBlock.delete({ where: { gpuUuid_hour: { gpuUuid: uuid, hour: new Date(hourMs) } } });
  await upsertMinuteRows(db(), kept);
}

describe("retention", () => {
  it("prunes minutes by whole blocks (GPU-hours) past their days and hours past theirs, and keeps the rest", async () => {
    const uuid = gpuUuid();
    await upsertMinuteRows(db(), [
      minuteRow(uuid, NOW - 31 * DAY_MS),
      minuteRow(uuid, NOW - 30 * DAY_MS - MINUTE_MS),
      minuteRow(uuid, NOW - 30 * DAY_MS + MINUTE_MS),
      minuteRow(uuid, NOW - MINUTE_MS),
    ]);
    await upsertHourRows(db(), [hourRow(uuid, NOW - 400 * DAY_MS), hourRow(uuid, NOW - 366 * DAY_MS), hourRow(uuid, NOW - 364 * DAY_MS), hourRow(uuid, NOW - 40 * DAY_MS)]);

    const pruned = await pruneHistory(new Date(NOW), POLICY);
    // The two old minutes had no hour row: each got one before it went.
    expect(pruned).toEqual({ minuteBlocks: 2, hours: 2, hoursRolledUp: 2 });
    const minutes = await readMinutes(db(), 0, EVER, [uuid]);
    expect(minutes.map((m) => (NOW - m.minute.getTime()) / MINUTE_MS)).toEqual([30 * 24 * 60 - 1, 1]);
    const hours = await db().gpuHour.findMany({ where: { gpuUuid: uuid }, select: { hour: true }, orderBy: { hour: "asc" } });
    expect(hours.map((h) => (NOW - h.hour.getTime()) / HOUR_MS)).toEqual([364 * 24, 40 * 24, 31 * 24, 30 * 24 + 1]);

    // Running it again removes nothing more.
    expect(await pruneHistory(new Date(NOW), POLICY)).toEqual({ minuteBlocks: 0, hours: 0, hoursRolledUp: 0 });
  });

  it("follows a shorter policy", async () => {
    const uuid = gpuUuid();
    await upsertMinuteRows(db(), [minuteRow(uuid, NOW - 2 * DAY_MS), minuteRow(uuid, NOW - HOUR_MS)]);
    await upsertHourRows(db(), [hourRow(uuid, NOW - 10 * DAY_MS), hourRow(uuid, NOW - 2 * DAY_MS)]);
    await pruneHistory(new Date(NOW), { minuteDays: 1, hourDays: 7 });
    expect(await minutesOf(uuid)).toBe(1);
    expect(await db().gpuHour.count({ where: { gpuUuid: uuid } })).toBe(1);
  });

  it("computes a missing or stale hour from its minutes before deleting them, and keeps an hour that counted more", async () => {
    const hourMs = NOW - 40 * DAY_MS;
    const [missing, stale, fresh, fuller] = [gpuUuid(), gpuUuid(), gpuUuid(), gpuUuid()];
    await upsertMinuteRows(db(), [...hourOfMinutes(missing, hourMs), ...hourOfMinutes(stale, hourMs), ...hourOfMinutes(fresh, hourMs), ...hourOfMinutes(fuller, hourMs)]);
    await recomputeHours(db(), [hourMs], [stale, fresh, fuller]);
    // The stale GPU's hour was computed from its first half; the other half came later without it (a version that wrote minutes alone).
    await keepMinutes(stale, hourMs, (minuteMs) => minuteMs < hourMs + 30 * MINUTE_MS);
    await recomputeHours(db(), [hourMs], [stale]);
    await upsertMinuteRows(db(), hourOfMinutes(stale, hourMs).slice(30));
    // The fuller GPU's minutes were cut at the minute by an older pruning: its hour row counted all 60.
    await keepMinutes(fuller, hourMs, (minuteMs) => minuteMs >= hourMs + 20 * MINUTE_MS);
    expect((await hourOf(stale, hourMs))?.samples).toBe(30);

    const pruned = await pruneHistory(new Date(NOW), POLICY);
    expect(pruned.hoursRolledUp).toBe(2);
    for (const uuid of [missing, stale, fresh, fuller]) {
      expect(await minutesOf(uuid)).toBe(0);
      // Minutes 0–59 at utilization 0–59: the mean is 29.5 and 30 of them busy.
      expect(await hourOf(uuid, hourMs)).toMatchObject({ samples: 60, utilAvg: 29.5, utilMax: 60, busyMinutes: 30 });
    }
  });

  it("deletes in batches of bounded rows with a pause between them, and a stopped run is finished by the next", async () => {
    const hourMs = NOW - 50 * DAY_MS;
    const gpus = Array.from({ length: 5 }, () => gpuUuid()).sort();
    await upsertMinuteRows(db(), gpus.flatMap((uuid) => hourOfMinutes(uuid, hourMs)));
    await recomputeHours(db(), [hourMs], gpus);
    const before = async () => Promise.all(gpus.map(minutesOf));

    // 120 rows a statement: two GPU-hours of minutes a batch. Stopped after the first batch (a restart, a new leader).
    const stop = new AbortController();
    let pauses = 0;
    const first = await pruneHistory(new Date(NOW), POLICY, { rowsPerStatement: 120, signal: stop.signal, pause: async () => void (pauses += 1, stop.abort()) });
    expect(first).toEqual({ minuteBlocks: 2, hours: 0, hoursRolledUp: 0 });
    expect(pauses).toBe(1);
    expect(await before()).toEqual([0, 0, 60, 60, 60]);

    pauses = 0;
    const second = await pruneHistory(new Date(NOW), POLICY, { rowsPerStatement: 120, pause: async () => void (pauses += 1) });
    expect(second.minuteBlocks).toBe(3);
    // Two more batches of minutes (two GPUs, then one); the hours take one statement, fewer than 120 rows, and no pause.
    expect(pauses).toBe(2);
    expect(await before()).toEqual([0, 0, 0, 0, 0]);
    for (const uuid of gpus) expect((await hourOf(uuid, hourMs))?.samples).toBe(60);
  });

  it("deletes old hours a bounded number at a time", async () => {
    const uuid = gpuUuid();
    await upsertHourRows(db(), Array.from({ length: 7 }, (_, i) => hourRow(uuid, NOW - 400 * DAY_MS + i * HOUR_MS)));
    let pauses = 0;
    const pruned = await pruneHistory(new Date(NOW), POLICY, { rowsPerStatement: 3, pause: async () => void (pauses += 1) });
    expect(pruned.hours).toBeGreaterThanOrEqual(7);
    expect(await db().gpuHour.count({ where: { gpuUuid: uuid } })).toBe(0);
    expect(pauses).toBeGreaterThanOrEqual(2);
  });

  it("runs as one of the leader's jobs and stops with its leadership", async () => {
    const hourMs = NOW - 60 * DAY_MS;
    const uuid = gpuUuid();
    await upsertMinuteRows(db(), hourOfMinutes(uuid, hourMs));
    const timers = manualTimers();
    const history = startHistory({ flushEveryMs: 60_000, ...POLICY, now: () => NOW, timers });
    const jobs = new LeaderJobs();
    jobs.add({ name: "history retention", start: () => history.startPruning() });
    try {
      await jobs.setLeader(true);
      // The first prune's minute is up.
      timers.fire();
      // A pass has ended: it deleted the old hour of minutes and left their hour.
      await vi.waitFor(() => expect(history.stats().lastPruneAt).toBe(NOW), { timeout: 20_000 });
      expect(await minutesOf(uuid)).toBe(0);
      expect((await hourOf(uuid, hourMs))?.samples).toBe(60);
      await jobs.setLeader(false);
      expect(jobs.runningJobs()).toEqual([]);
    } finally {
      await history.close();
    }
  });
});
