import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db";
import { HOUR_MS, MINUTE_MS, type HourRow, type MinuteRow } from "@/server/history/rollup-math";
import { pruneHistory } from "@/server/history/retention";
import { upsertHourRows, upsertMinuteRows } from "@/server/history/rollup-store";
import { gpuUuid } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

beforeAll(async () => {
  await useTestDatabase();
}, 60_000);

const DAY_MS = 24 * HOUR_MS;
const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);

function minuteRow(uuid: string, at: number): MinuteRow {
  return {
    gpuUuid: uuid,
    minute: new Date(at),
    hostId: "host-retention",
    samples: 60,
    utilAvg: 50,
    utilMax: 60,
    memUsedAvg: 1,
    memUsedMax: 1,
    memTotal: 10,
    powerAvg: 100,
    tempAvg: 40,
    tempMax: 41,
    holderUserId: null,
    busy: false,
    simulated: false,
  };
}

function hourRow(uuid: string, at: number): HourRow {
  const { minute: _minute, busy: _busy, ...rest } = minuteRow(uuid, at);
  return { ...rest, hour: new Date(at), busyMinutes: 0 };
}

describe("retention", () => {
  it("prunes minutes past their days and hours past theirs, and keeps the rest", async () => {
    const uuid = gpuUuid();
    await upsertMinuteRows(db(), [
      minuteRow(uuid, NOW - 31 * DAY_MS),
      minuteRow(uuid, NOW - 30 * DAY_MS - MINUTE_MS),
      minuteRow(uuid, NOW - 30 * DAY_MS + MINUTE_MS),
      minuteRow(uuid, NOW - MINUTE_MS),
    ]);
    await upsertHourRows(db(), [hourRow(uuid, NOW - 400 * DAY_MS), hourRow(uuid, NOW - 366 * DAY_MS), hourRow(uuid, NOW - 364 * DAY_MS), hourRow(uuid, NOW - 40 * DAY_MS)]);

    const pruned = await pruneHistory(new Date(NOW), { minuteDays: 30, hourDays: 365 });
    expect(pruned).toEqual({ minutes: 2, hours: 2 });
    const minutes = await db().gpuMinute.findMany({ where: { gpuUuid: uuid }, select: { minute: true }, orderBy: { minute: "asc" } });
    expect(minutes.map((m) => (NOW - m.minute.getTime()) / MINUTE_MS)).toEqual([30 * 24 * 60 - 1, 1]);
    const hours = await db().gpuHour.findMany({ where: { gpuUuid: uuid }, select: { hour: true }, orderBy: { hour: "asc" } });
    expect(hours.map((h) => (NOW - h.hour.getTime()) / DAY_MS)).toEqual([364, 40]);

    // Running it again removes nothing more.
    expect(await pruneHistory(new Date(NOW), { minuteDays: 30, hourDays: 365 })).toEqual({ minutes: 0, hours: 0 });
  });

  it("follows a shorter policy", async () => {
    const uuid = gpuUuid();
    await upsertMinuteRows(db(), [minuteRow(uuid, NOW - 2 * DAY_MS), minuteRow(uuid, NOW - HOUR_MS)]);
    await upsertHourRows(db(), [hourRow(uuid, NOW - 10 * DAY_MS), hourRow(uuid, NOW - 2 * DAY_MS)]);
    await pruneHistory(new Date(NOW), { minuteDays: 1, hourDays: 7 });
    expect(await db().gpuMinute.count({ where: { gpuUuid: uuid } })).toBe(1);
    expect(await db().gpuHour.count({ where: { gpuUuid: uuid } })).toBe(1);
  });
});
