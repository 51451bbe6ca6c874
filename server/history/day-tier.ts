import { Prisma } from "@prisma/client";
import { db } from "@/server/core/db";
import { HOUR_SQL, type TableSql } from "@/server/history/resolution";
import { DAY_MS, HOUR_MS, floorTo } from "@/server/minutes/minute-row";
import { claimWriteLock } from "@/server/history/write-lock";
import type { Client } from "@/server/minutes/minute-store";
import { bucketSeconds, sqlDialect } from "@/server/core/sql-dialect";

/**
 * The pre-summed tiers of the usage history (issue 52; docs/benchmark.md),
 * and the one module that writes, drops and names their tables:
 *
 * - GpuDay: a day's hour rows (GpuHour) summed per GPU, host, booker and
 *   runner: `HOUR_SQL`'s sums (minutes, utilization × minutes, minutes with
 *   a utilization, busy and idle minutes, simulated hour rows), so that a
 *   sum over day rows is the same sum over their hours, grouped by anything
 *   a day row keeps and by buckets of whole days (`DAY_SQL`).
 * - GpuSlot: the same day's utilization sums per GPU and host in slots of 6
 *   and of 24 hours, what the series and heatmap draw (`slotSql`): a row a
 *   GPU-slot, where GpuDay has one per booker and runner too.
 * - GpuMonth: a calendar month's day rows summed per GPU, host, booker and
 *   runner, for the tables over whole months (`MONTH_SQL`).
 *
 * A day counts as summed only while GpuDaySummed names it, a month while
 * GpuMonthSummed does, and a month only while every day of it is summed.
 * Any write of a day's hour rows (`upsertHourRows`: the flush, a backdated
 * idle release, a prune's roll-up, demo history) drops that day's day and
 * slot rows and its month's (`forgetDaySums`), and the reports read that
 * day's hours until it is summed again. The leader's retention job sums
 * every complete day that is not summed, then every month whose days all are
 * (`sumDays`): at start that is the backfill of existing history, then the
 * day that just ended; summing is idempotent (a day's or a month's rows are
 * replaced in one transaction) and resumes where it stopped. Days and months
 * whose hours retention has begun to delete are dropped (`pruneDaySums`).
 */

/** A day is summed once it ended this long ago: the flush writes its last hour in the minute after. */
const SETTLE_MS = HOUR_MS;
/** The slots' lengths, in hours: the series' and heatmap's buckets of 6 hours and of whole days. */
export const SLOT_HOURS = [6, 24] as const;

/** Start of the calendar month (UTC) that `ms` falls in, and of the next. */
export function monthStart(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}
export function nextMonth(monthMs: number): number {
  const date = new Date(monthMs);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

export interface SumDaysOptions {
  /** Awaited between two days or months (default: one turn of the event loop), so that ticks and requests run in between. */
  pause?: () => Promise<void>;
  /** Stops after the day or month in progress; the next run continues from what is stored. */
  signal?: AbortSignal;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Sums each complete day (ended an hour before `nowMs`) from the oldest
 * hour row on that is not summed yet, one day a transaction, then each
 * complete month whose days are all summed and that is not (`sumMonths`);
 * answers how many days it summed.
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
  await sumMonths(firstDayMs, endMs, { pause, signal: options.signal });
  // After a backfill, PostgreSQL's planner would take the tiers for empty until autovacuum analyzes them.
  if (count > 1 && sqlDialect() === "postgresql") await db().$executeRaw`ANALYZE "GpuDay", "GpuSlot", "GpuMonth", "GpuDaySummed", "GpuMonthSummed"`;
  return count;
}

const t = HOUR_SQL;

/** A time as a parameter of an INSERT … SELECT: there PostgreSQL's parameters get no type from the target. */
const timeValue = (ms: number) => (sqlDialect() === "postgresql" ? Prisma.sql`CAST(${new Date(ms)} AS timestamp(3))` : Prisma.sql`${new Date(ms)}`);

/** Replaces one day's rows (GpuDay, GpuSlot) by the sums of its hour rows now, and marks it summed, under the rollups' write lock. */
async function sumDay(tx: Client, dayMs: number): Promise<void> {
  // First: a flush writing this day's hours waits until the day is summed, and then drops the sums (upsertHourRows).
  await claimWriteLock(tx);
  const day = new Date(dayMs);
  await tx.gpuDay.deleteMany({ where: { day } });
  await tx.gpuSlot.deleteMany({ where: { day } });
  await tx.$executeRaw`INSERT INTO "GpuDay" ("day", "gpuUuid", "hostId", "bookedByUserId", "runnerUserId", "minutes", "utilMinutes", "utilCounted", "busyMinutes", "idleMinutes", "simulatedHours")
    SELECT ${timeValue(dayMs)}, r."gpuUuid", r."hostId", r."bookedByUserId", r."runnerUserId",
           SUM(${t.minutes}), SUM(${t.utilMinutes}), SUM(${t.utilCounted}), SUM(${t.busyMinutes}), SUM(${t.idleMinutes}), SUM(${t.simulatedRows})
    FROM ${t.from}
    WHERE ${Prisma.raw(t.time)} >= ${day} AND ${Prisma.raw(t.time)} < ${new Date(dayMs + DAY_MS)}
    GROUP BY r."gpuUuid", r."hostId", r."bookedByUserId", r."runnerUserId"`;
  for (const hours of SLOT_HOURS) {
    for (let startMs = dayMs; startMs < dayMs + DAY_MS; startMs += hours * HOUR_MS) {
      await tx.$executeRaw`INSERT INTO "GpuSlot" ("start", "hours", "day", "gpuUuid", "hostId", "utilMinutes", "utilCounted")
        SELECT ${timeValue(startMs)}, ${hours}, ${timeValue(dayMs)}, r."gpuUuid", r."hostId", SUM(${t.utilMinutes}), SUM(${t.utilCounted})
        FROM ${t.from}
        WHERE ${Prisma.raw(t.time)} >= ${new Date(startMs)} AND ${Prisma.raw(t.time)} < ${new Date(startMs + hours * HOUR_MS)}
        GROUP BY r."gpuUuid", r."hostId"`;
    }
  }
  await tx.gpuDaySummed.upsert({ where: { day }, create: { day }, update: { summedAt: new Date() } });
}

/** Each complete month in [fromMs, toMs) whose days are all summed and that is not yet, one month a transaction. */
async function sumMonths(fromMs: number, toMs: number, options: Required<Pick<SumDaysOptions, "pause">> & SumDaysOptions): Promise<void> {
  const summed = new Set((await db().gpuMonthSummed.findMany({ select: { month: true } })).map((row) => row.month.getTime()));
  for (let monthMs = monthStart(fromMs); nextMonth(monthMs) <= toMs && !options.signal?.aborted; monthMs = nextMonth(monthMs)) {
    if (monthMs < fromMs || summed.has(monthMs)) continue;
    if (await db().$transaction((tx) => sumMonth(tx, monthMs), { timeout: 60_000 })) await options.pause();
  }
}

/** Replaces one month's rows by the sums of its day rows and marks it summed, if every day of it is summed now; answers whether it was. */
async function sumMonth(tx: Client, monthMs: number): Promise<boolean> {
  await claimWriteLock(tx);
  const month = new Date(monthMs);
  const endMs = nextMonth(monthMs);
  const days = await tx.gpuDaySummed.count({ where: { day: { gte: month, lt: new Date(endMs) } } });
  if (days !== Math.round((endMs - monthMs) / DAY_MS)) return false;
  await tx.gpuMonth.deleteMany({ where: { month } });
  await tx.$executeRaw`INSERT INTO "GpuMonth" ("month", "gpuUuid", "hostId", "bookedByUserId", "runnerUserId", "minutes", "utilMinutes", "utilCounted", "busyMinutes", "idleMinutes", "simulatedHours")
    SELECT ${timeValue(monthMs)}, r."gpuUuid", r."hostId", r."bookedByUserId", r."runnerUserId",
           SUM(r."minutes"), SUM(r."utilMinutes"), SUM(r."utilCounted"), SUM(r."busyMinutes"), SUM(r."idleMinutes"), SUM(r."simulatedHours")
    FROM "GpuDay" r
    WHERE r."day" >= ${month} AND r."day" < ${new Date(endMs)}
    GROUP BY r."gpuUuid", r."hostId", r."bookedByUserId", r."runnerUserId"`;
  await tx.gpuMonthSummed.upsert({ where: { month }, create: { month }, update: { summedAt: new Date() } });
  return true;
}

/**
 * Drops the sums of the days these times fall in (their hour rows changed
 * or went) and of their months. One statement when none of them is summed
 * (the flush's usual case: today is not summed before it ends); a month is
 * summed only while its days are.
 */
export async function forgetDaySums(client: Client, times: readonly number[]): Promise<void> {
  const dayStarts = [...new Set(times.map((ms) => floorTo(ms, DAY_MS)))];
  if (dayStarts.length === 0) return;
  const { count } = await client.gpuDaySummed.deleteMany({ where: { day: { in: dayStarts.map((ms) => new Date(ms)) } } });
  if (count === 0) return;
  await client.gpuDay.deleteMany({ where: { day: { in: dayStarts.map((ms) => new Date(ms)) } } });
  await client.gpuSlot.deleteMany({ where: { day: { in: dayStarts.map((ms) => new Date(ms)) } } });
  const months = [...new Set(dayStarts.map(monthStart))].map((ms) => new Date(ms));
  const forgotten = await client.gpuMonthSummed.deleteMany({ where: { month: { in: months } } });
  if (forgotten.count > 0) await client.gpuMonth.deleteMany({ where: { month: { in: months } } });
}

/** Drops the sums of days and months that start before `cutoffMs` (retention's hour cutoff): some of their hours are gone or going. */
export async function pruneDaySums(client: Client, cutoffMs: number): Promise<void> {
  const cutoff = new Date(cutoffMs);
  await client.gpuMonthSummed.deleteMany({ where: { month: { lt: cutoff } } });
  await client.gpuMonth.deleteMany({ where: { month: { lt: cutoff } } });
  await client.gpuDaySummed.deleteMany({ where: { day: { lt: cutoff } } });
  await client.gpuDay.deleteMany({ where: { day: { lt: cutoff } } });
  await client.gpuSlot.deleteMany({ where: { day: { lt: cutoff } } });
}

/** A half-open time range, ms. */
export interface Span {
  fromMs: number;
  toMs: number;
}

/** Which tier answers which part of a range, each a list of spans in order. */
export interface TierSplit {
  /** Runs of whole months that are summed (GpuMonth). */
  months: Span[];
  /** Runs of whole days that are summed, outside those months (GpuDay, or GpuSlot). */
  days: Span[];
  /** What the hours answer: the edges and days not summed. */
  hours: Span[];
}

/** More spans than this (a range riddled with days not summed) and the hours answer it all. */
const MOST_SPANS = 16;

/** Appends [fromMs, toMs) to `spans`, joined to the last one where they meet. */
function append(spans: Span[], fromMs: number, toMs: number): void {
  const last = spans[spans.length - 1];
  if (last && last.toMs === fromMs) last.toMs = toMs;
  else spans.push({ fromMs, toMs });
}

/**
 * Splits [fromMs, toMs) into the whole months that are summed (when
 * `months`), the whole days that are summed, and the hour spans around and
 * between them.
 */
export async function splitByTier(fromMs: number, toMs: number, options: { months: boolean }, client: Client = db()): Promise<TierSplit> {
  const all: TierSplit = { months: [], days: [], hours: [{ fromMs, toMs }] };
  const firstDayMs = floorTo(fromMs + DAY_MS - 1, DAY_MS);
  const endDayMs = floorTo(toMs, DAY_MS);
  if (endDayMs <= firstDayMs) return all;
  const range = (field: "day" | "month") => ({ [field]: { gte: new Date(firstDayMs), lt: new Date(endDayMs) } });
  const [summedDays, summedMonths] = await Promise.all([
    client.gpuDaySummed.findMany({ where: range("day"), select: { day: true } }),
    options.months ? client.gpuMonthSummed.findMany({ where: range("month"), select: { month: true } }) : [],
  ]);
  if (summedDays.length === 0) return all;
  const days = new Set(summedDays.map((row) => row.day.getTime()));
  const months = new Set(summedMonths.map((row) => row.month.getTime()));
  const split: TierSplit = { months: [], days: [], hours: [] };
  let cursor = fromMs;
  for (let dayMs = firstDayMs; dayMs < endDayMs; ) {
    const monthEndMs = nextMonth(dayMs);
    if (months.has(dayMs) && monthEndMs <= endDayMs) {
      if (cursor < dayMs) append(split.hours, cursor, dayMs);
      append(split.months, dayMs, monthEndMs);
      cursor = dayMs = monthEndMs;
    } else {
      if (days.has(dayMs)) {
        if (cursor < dayMs) append(split.hours, cursor, dayMs);
        append(split.days, dayMs, dayMs + DAY_MS);
        cursor = dayMs + DAY_MS;
      }
      dayMs += DAY_MS;
    }
  }
  if (cursor < toMs) append(split.hours, cursor, toMs);
  return split.months.length + split.days.length + split.hours.length > MOST_SPANS ? all : split;
}

/**
 * A tier's WHERE over its spans (`slotHours`: the slots of that length),
 * and only rows of what is summed now: a day or month being dropped may
 * still have rows for a moment.
 */
export function summedWhere(tier: "day" | "month" | "slot", spans: readonly Span[], slotHours?: number): Prisma.Sql {
  // A slot's day, not its start: the spans are whole days, and the day leads the slots' index after their length.
  const time = Prisma.raw(tier === "day" ? DAY_SQL.time : tier === "month" ? MONTH_SQL.time : `r."day"`);
  const inSpans = Prisma.join(
    spans.map((span) => Prisma.sql`(${time} >= ${new Date(span.fromMs)} AND ${time} < ${new Date(span.toMs)})`),
    " OR ",
  );
  const first = new Date(spans[0]!.fromMs);
  const end = new Date(spans[spans.length - 1]!.toMs);
  const summed =
    tier === "month"
      ? Prisma.sql`r."month" IN (SELECT "month" FROM "GpuMonthSummed" WHERE "month" >= ${first} AND "month" < ${end})`
      : Prisma.sql`r."day" IN (SELECT "day" FROM "GpuDaySummed" WHERE "day" >= ${first} AND "day" < ${end})`;
  const slots = tier === "slot" ? Prisma.sql` AND r."hours" = ${slotHours ?? 0}` : Prisma.empty;
  return Prisma.sql`(${inSpans}) AND ${summed}${slots}`;
}

/**
 * `HOUR_SQL`'s rules over GpuDay, whose rows are its sums over a day's hour
 * rows: a sum over day rows equals the same sum over their hours, grouped
 * by anything a day row keeps (GPU, host, booker, runner) and by buckets of
 * whole days.
 */
export const DAY_SQL: TableSql = {
  from: Prisma.raw(`"GpuDay" r`),
  table: `"GpuDay"`,
  timeColumn: `"day"`,
  time: `r."day"`,
  minutes: Prisma.raw(`r."minutes"`),
  utilMinutes: Prisma.raw(`r."utilMinutes"`),
  utilCounted: Prisma.raw(`r."utilCounted"`),
  busyMinutes: Prisma.raw(`r."busyMinutes"`),
  idleMinutes: Prisma.raw(`r."idleMinutes"`),
  simulatedRows: Prisma.raw(`r."simulatedHours"`),
  bucket: (bucketMs) => bucketSeconds(`r."day"`, bucketMs / 1000),
};

/** The same over GpuMonth: grouped by anything a month row keeps, never by buckets (a month is no bucket's multiple). */
export const MONTH_SQL: TableSql = {
  ...DAY_SQL,
  from: Prisma.raw(`"GpuMonth" r`),
  table: `"GpuMonth"`,
  timeColumn: `"month"`,
  time: `r."month"`,
  bucket: () => {
    throw new RangeError("months are no buckets");
  },
};

/**
 * The same over GpuSlot (with `summedWhere`'s choice of slot length): its
 * utilization sums alone, grouped by GPU, host or model, and by buckets
 * that are whole slots. The other sums read 0: only the series and heatmap
 * ask it (gpu-time.ts's `utilizationOnly`).
 */
export const SLOT_SQL: TableSql = {
  from: Prisma.raw(`"GpuSlot" r`),
  table: `"GpuSlot"`,
  timeColumn: `"start"`,
  time: `r."start"`,
  minutes: Prisma.raw("0"),
  utilMinutes: Prisma.raw(`r."utilMinutes"`),
  utilCounted: Prisma.raw(`r."utilCounted"`),
  busyMinutes: Prisma.raw("0"),
  idleMinutes: Prisma.raw("0"),
  simulatedRows: Prisma.raw("0"),
  bucket: (bucketMs) => bucketSeconds(`r."start"`, bucketMs / 1000),
};
