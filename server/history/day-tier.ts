import { Prisma } from "@prisma/client";
import { db } from "@/server/core/db";
import { DAY_SQL, HOUR_SQL } from "@/server/history/resolution";
import { DAY_MS, HOUR_MS, floorTo } from "@/server/minutes/minute-row";
import { claimWriteLock } from "@/server/history/rollup-store";
import type { Client } from "@/server/minutes/minute-store";
import { sqlDialect } from "@/server/core/sql-dialect";

/**
 * The day tier: a day's hour rows (GpuHour) summed per GPU, host, booker and
 * runner into GpuDay, so that a year's usage report groups some 500 rows a
 * day at 160 GPUs instead of 3,840 hour rows (docs/benchmark.md, issue 52).
 *
 * - A day row holds `HOUR_SQL`'s sums over its group's hour rows, the figures
 *   every usage sum adds up (minutes, utilization × minutes, minutes with a
 *   utilization, busy and idle minutes, simulated hour rows), so that a sum
 *   over day rows is the same sum over their hours, grouped by anything a
 *   day row keeps and by buckets of whole days (`DAY_SQL`).
 * - A day counts as summed only while GpuDaySummed names it. Any write of
 *   its hour rows (`upsertHourRows`: the flush, a backdated idle release, a
 *   prune's roll-up, demo history) drops both (`forgetDaySums`), and the
 *   reports read that day's hours until it is summed again.
 * - The leader's retention job sums every complete day that is not summed
 *   (`sumDays`): at start that is the backfill of existing history, then
 *   the day that just ended; summing is idempotent (a day's rows are
 *   replaced in one transaction). Days whose hours retention has begun to
 *   delete are dropped (`pruneDaySums`).
 */

/** A day is summed once it ended this long ago: the flush writes its last hour in the minute after. */
const SETTLE_MS = HOUR_MS;

export interface SumDaysOptions {
  /** Awaited between two days (default: one turn of the event loop), so that ticks and requests run in between. */
  pause?: () => Promise<void>;
  /** Stops after the day in progress; the next run continues from what is stored. */
  signal?: AbortSignal;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Sums each complete day (ended an hour before `nowMs`) from the oldest
 * hour row on that is not summed yet, one day a transaction; answers how
 * many days it summed.
 */
export async function sumDays(nowMs: number, options: SumDaysOptions = {}): Promise<number> {
  const pause = options.pause ?? nextTurn;
  const oldest = await db().gpuHour.findFirst({ orderBy: { hour: "asc" }, select: { hour: true } });
  if (!oldest) return 0;
  // The oldest day may have lost its first hours to retention already: it stays with its hours.
  const firstDayMs = oldest.hour.getTime() === floorTo(oldest.hour.getTime(), DAY_MS) ? oldest.hour.getTime() : floorTo(oldest.hour.getTime(), DAY_MS) + DAY_MS;
  const endMs = floorTo(nowMs - SETTLE_MS, DAY_MS);
  if (endMs <= firstDayMs) return 0;
  const summed = new Set(
    (await db().gpuDaySummed.findMany({ where: { day: { gte: new Date(firstDayMs), lt: new Date(endMs) } }, select: { day: true } })).map((row) => row.day.getTime()),
  );
  let count = 0;
  for (let dayMs = firstDayMs; dayMs < endMs && !options.signal?.aborted; dayMs += DAY_MS) {
    if (summed.has(dayMs)) continue;
    await db().$transaction((tx) => sumDay(tx, dayMs), { timeout: 60_000 });
    count++;
    await pause();
  }
  return count;
}

const t = HOUR_SQL;

/** Replaces one day's rows by the sums of its hour rows now, and marks it summed, under the rollups' write lock. */
async function sumDay(tx: Client, dayMs: number): Promise<void> {
  // First: a flush writing this day's hours waits until the day is summed, and then drops the sums (upsertHourRows).
  await claimWriteLock(tx);
  const day = new Date(dayMs);
  // An INSERT … SELECT's parameters get no type from the target on PostgreSQL.
  const dayValue = sqlDialect() === "postgresql" ? Prisma.sql`CAST(${day} AS timestamp(3))` : Prisma.sql`${day}`;
  await tx.gpuDay.deleteMany({ where: { day } });
  await tx.$executeRaw`INSERT INTO "GpuDay" ("day", "gpuUuid", "hostId", "bookedByUserId", "runnerUserId", "minutes", "utilMinutes", "utilCounted", "busyMinutes", "idleMinutes", "simulatedHours")
    SELECT ${dayValue}, r."gpuUuid", r."hostId", r."bookedByUserId", r."runnerUserId",
           SUM(${t.minutes}), SUM(${t.utilMinutes}), SUM(${t.utilCounted}), SUM(${t.busyMinutes}), SUM(${t.idleMinutes}), SUM(${t.simulatedRows})
    FROM ${t.from}
    WHERE ${Prisma.raw(t.time)} >= ${day} AND ${Prisma.raw(t.time)} < ${new Date(dayMs + DAY_MS)}
    GROUP BY r."gpuUuid", r."hostId", r."bookedByUserId", r."runnerUserId"`;
  await tx.gpuDaySummed.upsert({ where: { day }, create: { day }, update: { summedAt: new Date() } });
}

/** Drops the sums of days that start before `cutoffMs` (retention's hour cutoff): some of their hours are gone or going. */
export async function pruneDaySums(client: Client, cutoffMs: number): Promise<void> {
  const before = { day: { lt: new Date(cutoffMs) } };
  await client.gpuDaySummed.deleteMany({ where: before });
  await client.gpuDay.deleteMany({ where: before });
}

/** A half-open time range, ms. */
export interface Span {
  fromMs: number;
  toMs: number;
}

/** Which tier answers which part of a range: summed days, and hours for the rest. */
export interface TierSplit {
  /** The summed days' span (GpuDay rows read only for days GpuDaySummed names), or null. */
  days: Span | null;
  /** What the hours answer: the edges and days not summed, in order. */
  hours: Span[];
}

/** More hour spans than this (a range riddled with days not summed) and the hours answer it all. */
const MOST_HOUR_SPANS = 16;

/** Splits [fromMs, toMs) into the whole days that are summed and the hour spans around and between them. */
export async function splitByTier(fromMs: number, toMs: number, client: Client = db()): Promise<TierSplit> {
  const all: TierSplit = { days: null, hours: [{ fromMs, toMs }] };
  const firstDayMs = floorTo(fromMs + DAY_MS - 1, DAY_MS);
  const endDayMs = floorTo(toMs, DAY_MS);
  if (endDayMs <= firstDayMs) return all;
  const summed = (await client.gpuDaySummed.findMany({ where: { day: { gte: new Date(firstDayMs), lt: new Date(endDayMs) } }, select: { day: true }, orderBy: { day: "asc" } })).map((row) =>
    row.day.getTime(),
  );
  if (summed.length === 0) return all;
  const hours: Span[] = [];
  let cursor = fromMs;
  for (const dayMs of summed) {
    if (dayMs > cursor) hours.push({ fromMs: cursor, toMs: dayMs });
    cursor = dayMs + DAY_MS;
  }
  if (cursor < toMs) hours.push({ fromMs: cursor, toMs });
  if (hours.length > MOST_HOUR_SPANS) return all;
  return { days: { fromMs: summed[0]!, toMs: summed[summed.length - 1]! + DAY_MS }, hours };
}

/** The day rows' WHERE: the span, and only days summed (a day being dropped may still have rows for a moment). */
export function summedDaysWhere(span: Span): Prisma.Sql {
  const time = Prisma.raw(DAY_SQL.time);
  return Prisma.sql`${time} >= ${new Date(span.fromMs)} AND ${time} < ${new Date(span.toMs)} AND ${time} IN (SELECT "day" FROM "GpuDaySummed" WHERE "day" >= ${new Date(span.fromMs)} AND "day" < ${new Date(span.toMs)})`;
}
