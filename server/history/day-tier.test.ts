import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/core/db";
import { monthStart, sumDays } from "@/server/history/day-tier";
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
 * The summed tiers (issue 52: days, their slots of 6 and 24 hours, months)
 * change no figure: on one uneven history of hour rows (gaps, hours without
 * utilization, idle and busy hours, bookers, runners and hosts that change
 * within a day, simulated rows), every usage sum and whole report reads the
 * same from the tiers as from the hours alone, to far below a GPU-second; a
 * write of a summed day's hours (and so its month's), and retention cutting
 * into a day or a month, fall back to the hours; a backfill cut off midway
 * and run again sums the same.
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

/** Groups in a fixed order: the tiers' rows come back in any. A utilization-only sum is held to its two figures. */
const sorted = (sums: Awaited<ReturnType<typeof sumGpuTime>>, utilizationOnly = false) =>
  [...sums]
    .map((sum) => (utilizationOnly ? { ...sum, minutes: 0, busyMinutes: 0, idleMinutes: 0, simulated: 0 } : sum))
    .sort((a, b) => JSON.stringify([a.bucketStartMs, a.gpuUuid, a.hostId, a.bookedByUserId, a.runnerUserId, a.model]).localeCompare(JSON.stringify([b.bucketStartMs, b.gpuUuid, b.hostId, b.bookedByUserId, b.runnerUserId, b.model])));

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
  // The same as the page asks them (utilization alone): the slots answer whole days at 6 hours and more.
  { fromMs: T0, toMs: END, by: ["bucket", "host"], bucketMs: DAY_MS, utilizationOnly: true },
  { fromMs: T0 + 2 * DAY_MS, toMs: END - HOUR_MS, by: ["bucket", "model"], bucketMs: 3 * DAY_MS, utilizationOnly: true },
  { fromMs: T0 + 9 * HOUR_MS, toMs: END, by: ["gpu", "bucket"], bucketMs: 6 * HOUR_MS, utilizationOnly: true },
  { fromMs: T0 + 18 * HOUR_MS, toMs: END - 5 * HOUR_MS, by: ["bucket", "host"], bucketMs: 12 * HOUR_MS, utilizationOnly: true },
  { fromMs: T0, toMs: END, by: ["gpu", "bucket"], bucketMs: 2 * HOUR_MS, utilizationOnly: true },
  // The tables over whole months (February and March) and the days and hours around them.
  { fromMs: T0 + 11 * HOUR_MS, toMs: END - 7 * HOUR_MS, by: ["booker", "host", "gpu"], notWhileSliced: true },
  { fromMs: Date.UTC(2026, 1, 1), toMs: Date.UTC(2026, 3, 1), by: ["runner", "gpu"], unbooked: true, notWhileSliced: true },
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
  for (const query of SUMS) sums.push(sorted(await sumGpuTime({ ...query, table: "hour" }), query.utilizationOnly));
  const reports = [];
  for (const { range, ...rest } of REPORTS) reports.push(await getUsageReport({ range: { choice: "custom", ...range }, ...rest, nowMs: NOW, minuteRetentionMs: 0 }));
  return { sums, reports };
}

/** The same, read from the hours alone: no day nor month counts as summed. */
async function fromHoursAlone() {
  const summed = await db().gpuDaySummed.findMany();
  const months = await db().gpuMonthSummed.findMany();
  await db().gpuDaySummed.deleteMany();
  await db().gpuMonthSummed.deleteMany();
  const answer = await everything();
  await db().gpuDaySummed.createMany({ data: summed });
  await db().gpuMonthSummed.createMany({ data: months });
  return answer;
}

const summedDays = async () => (await db().gpuDaySummed.findMany({ select: { day: true }, orderBy: { day: "asc" } })).map((row) => row.day.getTime());
const summedMonths = async () => (await db().gpuMonthSummed.findMany({ select: { month: true }, orderBy: { month: "asc" } })).map((row) => row.month.getTime());
const FEBRUARY = Date.UTC(2026, 1, 1);
const MARCH = Date.UTC(2026, 2, 1);

/** Every tier's rows, in a fixed order, without their ids: what two backfills must agree on. */
async function tierRows() {
  const omitId = <T extends { id: number }>({ id: _id, ...row }: T) => row;
  // Sums of fractions in another order differ in their last bits (PostgreSQL's plans vary): to 1e-6 of a minute.
  const key = (row: object) => JSON.stringify(row, (_, value: unknown) => (typeof value === "number" ? Math.round(value * 1e6) / 1e6 : value));
  const order = (rows: object[]) => rows.map(key).sort();
  return {
    days: order((await db().gpuDay.findMany()).map(omitId)),
    slots: order((await db().gpuSlot.findMany()).map(omitId)),
    months: order((await db().gpuMonth.findMany()).map(omitId)),
    summedDays: await summedDays(),
    summedMonths: await summedMonths(),
  };
}

/** No day nor month summed, as before the first backfill. */
async function forgetEverySum() {
  await db().gpuDaySummed.deleteMany();
  await db().gpuDay.deleteMany();
  await db().gpuSlot.deleteMany();
  await db().gpuMonthSummed.deleteMany();
  await db().gpuMonth.deleteMany();
}

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
    // January and April are cut by the history's ends: only its whole months are summed.
    expect(await summedMonths()).toEqual([FEBRUARY, MARCH]);
    // A day row stands for one or more hour rows, a month row for one or more day rows; a GPU-slot of a day has a row per host.
    expect(await db().gpuDay.count()).toBeLessThan(await db().gpuHour.count());
    expect(await db().gpuMonth.count()).toBeLessThan(await db().gpuDay.count({ where: { day: { gte: new Date(FEBRUARY), lt: new Date(Date.UTC(2026, 3, 1)) } } }));
    expect(await db().gpuSlot.count({ where: { hours: 24 } })).toBeGreaterThanOrEqual(DAYS * gpus.length);
    expect(await db().gpuSlot.count({ where: { hours: 6 } })).toBeGreaterThanOrEqual(4 * DAYS * gpus.length);
    const tiered = await everything();
    expectSame(tiered, await fromHoursAlone());
    // The reports are not empty: the comparison compares something.
    expect(tiered.reports[0]!.totals.reportedGpuHours).toBeGreaterThan(1000);
    expect(tiered.reports[2]!.range.heatmapBucketMs).toBe(DAY_MS);
  }, 60_000);

  it("drops a day's sums and its month's when one of its hours is written again, and sums them again", async () => {
    await sumDays(NOW);
    // A day of February: a whole month summed.
    const dayMs = T0 + 40 * DAY_MS;
    expect(monthStart(dayMs)).toBe(FEBRUARY);
    const [row] = history().filter((hour) => hour.hour.getTime() >= dayMs + 5 * HOUR_MS);
    await upsertHourRows(db(), [{ ...row!, samples: 60, utilAvg: 99, busyMinutes: 60, bookedByUserId: "person-c" }]);
    expect(await summedDays()).not.toContain(dayMs);
    expect(await summedMonths()).toEqual([MARCH]);
    expect(await db().gpuSlot.count({ where: { day: new Date(dayMs) } })).toBe(0);
    expectSame(await everything(), await fromHoursAlone());
    expect(await sumDays(NOW)).toBe(1);
    expect(await summedMonths()).toEqual([FEBRUARY, MARCH]);
    expectSame(await everything(), await fromHoursAlone());
  }, 60_000);

  it("sums the same after a backfill cut off midway and run again, days or months", async () => {
    await sumDays(NOW);
    const whole = await tierRows();
    const expected = await everything();
    // Cut off after 30 days, then after the days and the first month (a throw, as a crash between two transactions).
    for (const cutAfter of [30, DAYS + 1]) {
      await forgetEverySum();
      let pauses = 0;
      const cut = () => (++pauses >= cutAfter ? Promise.reject(new Error("cut off")) : Promise.resolve());
      await expect(sumDays(NOW, { pause: cut })).rejects.toThrow("cut off");
      expect((await summedDays()).length).toBe(Math.min(cutAfter, DAYS));
      expect(await summedMonths()).toEqual(cutAfter > DAYS ? [FEBRUARY] : []);
      // What is summed so far already reads right; the rest reads from the hours.
      expectSame(await everything(), expected);
      await sumDays(NOW);
      expect(await tierRows()).toEqual(whole);
      expectSame(await everything(), expected);
    }
  }, 120_000);

  it("falls back to the hours for a split GPU's time, and for days retention cut into", async () => {
    await sumDays(NOW);
    // GPU 1 a slice of GPU 0 from now on: the tables leave GPU 0's hours out where GPU 1 reported.
    await db().gpu.update({ where: { uuid: gpus[1]! }, data: { parentUuid: gpus[0]! } });
    try {
      expectSame(await everything(), await fromHoursAlone());
    } finally {
      await db().gpu.update({ where: { uuid: gpus[1]! }, data: { parentUuid: null } });
    }
    // A cutoff in the middle of day 30 (4 February): days up to it lose their sums with their first hour, and February its.
    const cutoffMs = T0 + 30 * DAY_MS + 7 * HOUR_MS;
    await pruneHistory(new Date(cutoffMs + 30 * DAY_MS), { minuteDays: 30, hourDays: 30 });
    expect((await summedDays())[0]).toBe(T0 + 31 * DAY_MS);
    expect(await summedMonths()).toEqual([MARCH]);
    expect(await db().gpuDay.count({ where: { day: { lt: new Date(T0 + 31 * DAY_MS) } } })).toBe(0);
    expect(await db().gpuSlot.count({ where: { day: { lt: new Date(T0 + 31 * DAY_MS) } } })).toBe(0);
    expect(await db().gpuMonth.count({ where: { month: { lt: new Date(MARCH) } } })).toBe(0);
    expectSame(await everything(), await fromHoursAlone());
    // The day that lost some of its hours is not summed again.
    expect(await sumDays(NOW)).toBe(0);
  }, 60_000);
});
