import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/core/db";
import { sumDays } from "@/server/history/day-tier";
import { sumGpuTime, type GpuTimeQuery } from "@/server/history/gpu-time";
import { pruneHistory } from "@/server/history/retention";
import type { HourRow } from "@/server/history/rollup-math";
import { DAY_MS, HOUR_MS } from "@/server/minutes/minute-row";
import { upsertHourRows } from "@/server/history/rollup-store";
import { getUsageReport } from "@/server/history/usage-report";
import { ensureLocalHost, recordHostInventory } from "@/server/hosts/host-registry";
import { makeGpu, uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The day tier (issue 52) changes no figure: on one uneven history of hour
 * rows (gaps, hours without utilization, idle and busy hours, bookers,
 * runners and hosts that change within a day, simulated rows), every usage
 * sum and whole report reads the same from the day tier as from the hours
 * alone, to far below a GPU-second; a write of a summed day's hours, and
 * retention cutting into a day, fall back to the hours.
 */

const DAYS = 90;
/** Midnight UTC, then the history's days after it. */
const T0 = Date.UTC(2026, 0, 5);
const END = T0 + DAYS * DAY_MS;
/** The report's "now": a while after the last hour, so that every complete day is summed. */
const NOW = END + 2 * HOUR_MS;
const people = ["person-a", "person-b", "person-c"];
let gpus: string[] = [];
let hosts: string[] = [];

function history(): HourRow[] {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const rows: HourRow[] = [];
  for (const [g, uuid] of gpus.entries()) {
    for (let hourMs = T0; hourMs < END; hourMs += HOUR_MS) {
      if (next() < 0.1) continue;
      const samples = 1 + Math.floor(next() * 60);
      const util = next() < 0.1 ? null : next() < 0.3 ? next() * 5 : Math.round(next() * 1000) / 10;
      rows.push({
        gpuUuid: uuid,
        hour: new Date(hourMs),
        // The GPU moves to the other host for part of each day.
        hostId: hosts[(g + ((hourMs / HOUR_MS) % 24 > 17 ? 1 : 0)) % hosts.length]!,
        samples,
        utilAvg: util,
        utilMax: util,
        memUsedAvg: 1000,
        memUsedMax: 2000,
        memTotal: 81559,
        powerAvg: 200,
        tempAvg: 50,
        tempMax: 60,
        bookedByUserId: next() < 0.4 ? null : people[Math.floor(next() * people.length)]!,
        runnerUserId: next() < 0.5 ? null : people[Math.floor(next() * people.length)]!,
        busyMinutes: Math.floor(next() * (samples + 1)),
        simulated: g === 0,
      });
    }
  }
  return rows;
}

/** Numbers compared to 1e-9 of their size (sums in another order), everything else exactly. */
function expectSame(actual: unknown, expected: unknown, path = "$"): void {
  if (typeof expected === "number" && typeof actual === "number") {
    if (Math.abs(actual - expected) > 1e-9 * Math.max(1, Math.abs(expected))) expect.fail(`${path}: ${actual} ≠ ${expected}`);
    return;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    expect(actual.length, `${path}.length`).toBe(expected.length);
    expected.forEach((item, i) => expectSame(actual[i], item, `${path}[${i}]`));
    return;
  }
  if (expected && typeof expected === "object" && actual && typeof actual === "object") {
    expect(Object.keys(actual).sort(), `${path} keys`).toEqual(Object.keys(expected).sort());
    for (const [key, value] of Object.entries(expected)) expectSame((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
    return;
  }
  expect(actual, path).toEqual(expected);
}

/** Groups in a fixed order: the tiers' rows come back in any. */
const sorted = (sums: Awaited<ReturnType<typeof sumGpuTime>>) =>
  [...sums].sort((a, b) => JSON.stringify([a.bucketStartMs, a.gpuUuid, a.hostId, a.bookedByUserId, a.runnerUserId, a.model]).localeCompare(JSON.stringify([b.bucketStartMs, b.gpuUuid, b.hostId, b.bookedByUserId, b.runnerUserId, b.model])));

const SUMS: Omit<GpuTimeQuery, "table">[] = [
  // The usage tables' sum, over whole days and over edges at odd hours.
  { fromMs: T0, toMs: END, by: ["booker", "host", "gpu"], notWhileSliced: true },
  { fromMs: T0 + 5 * HOUR_MS + 17 * 60_000, toMs: END - 3 * HOUR_MS, by: ["booker", "host", "gpu"], notWhileSliced: true },
  { fromMs: T0 + 3 * DAY_MS + 7 * HOUR_MS, toMs: T0 + 40 * DAY_MS + 1, by: ["runner", "gpu"], unbooked: true, notWhileSliced: true },
  { fromMs: T0, toMs: END, by: ["booker", "host", "gpu"], booker: "person-b" },
  // The series and heatmap at buckets of whole days, and one that is not (the hours answer it).
  { fromMs: T0, toMs: END, by: ["bucket", "host"], bucketMs: DAY_MS },
  { fromMs: T0 + 2 * DAY_MS, toMs: END - HOUR_MS, by: ["bucket", "model"], bucketMs: 3 * DAY_MS },
  { fromMs: T0, toMs: END, by: ["gpu", "bucket"], bucketMs: 7 * DAY_MS },
  { fromMs: T0 + 9 * HOUR_MS, toMs: END, by: ["gpu", "bucket"], bucketMs: 6 * HOUR_MS },
];

/** The page's reports: the tables from days at every range; the heatmap's columns whole days at the longest. */
const REPORTS = [
  { range: { fromMs: T0, toMs: END }, groupBy: "host" as const },
  { range: { fromMs: END - 30 * DAY_MS - 5 * HOUR_MS, toMs: END - 2 * HOUR_MS }, groupBy: "host" as const, userId: "person-a" },
  { range: { fromMs: END - 86 * DAY_MS + 13 * HOUR_MS, toMs: NOW }, groupBy: "model" as const },
];

/** Every sum and report above, as they read now. */
async function everything() {
  const sums = [];
  for (const query of SUMS) sums.push(sorted(await sumGpuTime({ ...query, table: "hour" })));
  const reports = [];
  for (const { range, ...rest } of REPORTS) reports.push(await getUsageReport({ range: { choice: "custom", ...range }, ...rest, nowMs: NOW, minuteRetentionMs: 0 }));
  return { sums, reports };
}

/** The same, read from the hours alone: no day counts as summed. */
async function fromHoursAlone() {
  const summed = await db().gpuDaySummed.findMany();
  await db().gpuDaySummed.deleteMany();
  const answer = await everything();
  await db().gpuDaySummed.createMany({ data: summed });
  return answer;
}

const summedDays = async () => (await db().gpuDaySummed.findMany({ select: { day: true }, orderBy: { day: "asc" } })).map((row) => row.day.getTime());

beforeAll(async () => {
  await useTestDatabase();
  for (let h = 0; h < 2; h++) {
    const host = await ensureLocalHost(uniqueName(`days${h}`), false);
    hosts.push(host.id);
    const made = [makeGpu({ index: 0 }), makeGpu({ index: 1, name: "NVIDIA A100-SXM4-80GB" })];
    await recordHostInventory(host.id, { name: host.name, driverVersion: null, cudaVersion: null }, made, new Date(T0));
    gpus.push(...made.map((gpu) => gpu.uuid));
  }
  gpus = gpus.slice(0, 3);
  hosts = hosts.slice(0, 2);
  await upsertHourRows(db(), history());
}, 60_000);

describe("the day tier", () => {
  it("sums each complete day once, and reads the same figures as the hours alone", async () => {
    expect(await sumDays(NOW)).toBe(DAYS);
    expect(await sumDays(NOW)).toBe(0);
    expect(await summedDays()).toEqual(Array.from({ length: DAYS }, (_, i) => T0 + i * DAY_MS));
    // A day row stands for one or more hour rows.
    expect(await db().gpuDay.count()).toBeLessThan(await db().gpuHour.count());
    const tiered = await everything();
    expectSame(tiered, await fromHoursAlone());
    // The reports are not empty: the comparison compares something.
    expect(tiered.reports[0]!.totals.reportedGpuHours).toBeGreaterThan(1000);
    expect(tiered.reports[2]!.range.heatmapBucketMs).toBe(DAY_MS);
  }, 60_000);

  it("drops a day's sums when one of its hours is written again, and sums it again", async () => {
    await sumDays(NOW);
    const dayMs = T0 + 20 * DAY_MS;
    const [row] = history().filter((hour) => hour.hour.getTime() >= dayMs + 5 * HOUR_MS);
    await upsertHourRows(db(), [{ ...row!, samples: 60, utilAvg: 99, busyMinutes: 60, bookedByUserId: "person-c" }]);
    expect(await summedDays()).not.toContain(dayMs);
    expectSame(await everything(), await fromHoursAlone());
    expect(await sumDays(NOW)).toBe(1);
    expectSame(await everything(), await fromHoursAlone());
  }, 60_000);

  it("falls back to the hours for a split GPU's time, and for days retention cut into", async () => {
    await sumDays(NOW);
    // GPU 1 a slice of GPU 0 from now on: the tables leave GPU 0's hours out where GPU 1 reported.
    await db().gpu.update({ where: { uuid: gpus[1]! }, data: { parentUuid: gpus[0]! } });
    try {
      expectSame(await everything(), await fromHoursAlone());
    } finally {
      await db().gpu.update({ where: { uuid: gpus[1]! }, data: { parentUuid: null } });
    }
    // A cutoff in the middle of day 10: days up to it lose their sums with their first hour.
    const cutoffMs = T0 + 10 * DAY_MS + 7 * HOUR_MS;
    await pruneHistory(new Date(cutoffMs + 30 * DAY_MS), { minuteDays: 30, hourDays: 30 });
    expect((await summedDays())[0]).toBe(T0 + 11 * DAY_MS);
    expect(await db().gpuDay.count({ where: { day: { lt: new Date(T0 + 11 * DAY_MS) } } })).toBe(0);
    expectSame(await everything(), await fromHoursAlone());
    // The day that lost some of its hours is not summed again.
    expect(await sumDays(NOW)).toBe(0);
  }, 60_000);
});
