import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { UsageReport } from "@/lib/domain/usage-types";
import { db } from "@/server/core/db";
import { HOUR_MS, MINUTE_MS, type MinuteRow } from "@/server/minutes/minute-row";
import { pruneHistory } from "@/server/history/retention";
import { recomputeHours, upsertMinuteRows } from "@/server/history/rollup-store";
import { readMinutes } from "@/server/minutes/minute-store";
import { getUsageReport } from "@/server/history/usage-report";
import { ensureLocalHost, recordHostInventory } from "@/server/hosts/host-registry";
import { makeGpu, makeReadMinute, uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The usage report of a range forty days back, before and after the
 * retention rolled its minutes up and deleted them. Three hours of a
 * three-GPU fleet; the second hour of host B was written as minutes alone
 * (a version before the hourly rollups, a backfill), so its hour row is
 * missing until the roll-up makes it. Bookings start and end on the hour
 * and each GPU-hour is idle or not as a whole: an hour row credits the hour
 * to whoever held the GPU for most of it and counts it idle by its mean
 * utilization, so finer detail than that is what the roll-up gives up.
 */
const DAY_MS = 24 * HOUR_MS;
const NOW = Date.UTC(2026, 11, 4, 12, 0, 0);
const T0 = NOW - 40 * DAY_MS - 6 * HOUR_MS;
const RANGE = { choice: "custom" as const, fromMs: T0, toMs: T0 + 3 * HOUR_MS };

let userId: string;

function minutes(gpuUuid: string, hostId: string, fromMs: number, count: number, row: (i: number) => Partial<MinuteRow>): MinuteRow[] {
  return Array.from({ length: count }, (_, i) => makeReadMinute(gpuUuid, fromMs + i * MINUTE_MS, { hostId, utilAvg: 0, utilMax: 0, ...row(i) }));
}

beforeAll(async () => {
  await useTestDatabase();
  const a = await ensureLocalHost(uniqueName("alpha"), false);
  const b = await ensureLocalHost(uniqueName("beta"), false);
  const [a0, a1, b0] = [makeGpu({ index: 0 }), makeGpu({ index: 1 }), makeGpu({ index: 0, name: "NVIDIA GeForce RTX 4090" })];
  const info = { driverVersion: null, cudaVersion: null };
  await recordHostInventory(a.id, { name: a.name, ...info }, [a0, a1], new Date(T0));
  await recordHostInventory(b.id, { name: b.name, ...info }, [b0], new Date(T0));
  const username = uniqueName("user");
  userId = (await db().user.create({ data: { id: randomUUID(), name: "Retention Person", email: `${username}@example.test`, username } })).id;
  const gpuId = async (uuid: string) => (await db().gpu.findFirstOrThrow({ where: { uuid }, select: { id: true } })).id;
  // GPU A0 booked for the first two hours, A1 for the last one.
  for (const [uuid, fromHour, hours] of [[a0.uuid, 0, 2], [a1.uuid, 2, 1]] as const) {
    const startsAt = new Date(T0 + fromHour * HOUR_MS);
    const endsAt = new Date(T0 + (fromHour + hours) * HOUR_MS);
    await db().reservation.create({ data: { userId, hostId: a.id, startsAt, endsAt, purpose: "retention", gpus: { create: [{ gpuId: await gpuId(uuid), startsAt, endsAt }] } } });
  }
  const booked = (uuid: string, fromHour: number, hours: number) => (i: number) =>
    i >= fromHour * 60 && i < (fromHour + hours) * 60 ? { bookedByUserId: userId } : {};
  await upsertMinuteRows(db(), [
    ...minutes(a0.uuid, a.id, T0, 180, (i) => ({ utilAvg: 20 + ((i * 7) % 81), utilMax: 100, busy: i % 3 !== 0, ...booked(a0.uuid, 0, 2)(i) })),
    ...minutes(a1.uuid, a.id, T0, 170, (i) => ({ utilAvg: i < 120 ? 0 : 2, ...booked(a1.uuid, 2, 1)(i) })),
    ...minutes(b0.uuid, b.id, T0, 180, (i) => ({ utilAvg: 50 + (i % 5), utilMax: 60, busy: true, runnerUserId: i < 60 ? userId : null })),
  ]);
  // As the server writes them: every hour but host B's second, which only has its minutes.
  await recomputeHours(db(), [T0, T0 + HOUR_MS, T0 + 2 * HOUR_MS], [a0.uuid, a1.uuid]);
  await recomputeHours(db(), [T0, T0 + 2 * HOUR_MS], [b0.uuid]);
}, 60_000);

/** The report's figures (tables and totals), rounded past the floating-point noise of summing in another order. */
function figures(report: UsageReport) {
  const round = (value: unknown): unknown =>
    typeof value === "number" ? Math.round(value * 1e6) / 1e6 : Array.isArray(value) ? value.map(round) : value && typeof value === "object" ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, round(v)])) : value;
  return round({ people: report.people, hosts: report.hosts, totals: report.totals });
}

describe("retention and the usage report", () => {
  it("gives the same figures for an older range after its minutes were rolled up and deleted", async () => {
    // Before: minutes still kept for that range (a retention of 60 days), so the report reads them.
    const before = await getUsageReport({ range: RANGE, groupBy: "host", nowMs: NOW, minuteRetentionMs: 60 * DAY_MS });
    expect(before.range.source).toBe("minute");
    expect(await readMinutes(db(), RANGE.fromMs, RANGE.toMs)).toHaveLength(530);
    const person = before.people.find((p) => p.userId === userId)!;
    expect(person.bookedGpuHours).toBeCloseTo(3, 8);

    // What the page showed for that range before the pruning: the hours, one of them missing.
    const servedBefore = await getUsageReport({ range: RANGE, groupBy: "host", nowMs: NOW, minuteRetentionMs: 30 * DAY_MS });
    expect(figures(servedBefore)).not.toEqual(figures(before));

    const pruned = await pruneHistory(new Date(NOW), { minuteDays: 30, hourDays: 365 });
    // Nine GPU-hours of minutes (three GPUs, three hours).
    expect(pruned).toMatchObject({ minuteBlocks: 9, hoursRolledUp: 1 });
    expect(await readMinutes(db(), RANGE.fromMs, RANGE.toMs)).toHaveLength(0);

    // After: the range is past the 30 days of minutes, read from the hours alone.
    const after = await getUsageReport({ range: RANGE, groupBy: "host", nowMs: NOW, minuteRetentionMs: 30 * DAY_MS });
    expect(after.range.source).toBe("hour");
    expect(figures(after)).toEqual(figures(before));
    expect(after.totals.usedGpuHours).toBeGreaterThan(0);
  });
});
