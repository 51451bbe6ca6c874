import { Prisma } from "@prisma/client";
import { IDLE_UTIL_PCT } from "@/lib/domain/usage-types";
import { HOUR_MS, MINUTE_MS, floorTo, type MinuteRow } from "@/server/minutes/minute-row";
import { bucketSeconds } from "@/server/core/sql-dialect";

/**
 * Which rollups answer a range and how coarse its points are. Short ranges
 * read minutes; long ones read hours, so that a 30-day view of a large
 * fleet reads tens of thousands of rows, not millions.
 */

export type RollupTable = "minute" | "hour";

export interface Resolution {
  table: RollupTable;
  bucketMs: number;
  heatmapTable: RollupTable;
  heatmapBucketMs: number;
}

/** At most about this many points per series, and columns per heatmap. */
const MAX_POINTS = 400;
const MAX_COLUMNS = 168;
const NICE_HOURS = [1, 2, 3, 4, 6, 8, 12, 24, 48, 72, 168];

function niceHours(minimumMs: number): number {
  const hours = NICE_HOURS.find((h) => h * HOUR_MS >= minimumMs) ?? NICE_HOURS[NICE_HOURS.length - 1]!;
  return hours * HOUR_MS;
}

export function planResolution(fromMs: number, toMs: number, nowMs: number, minuteRetentionMs: number): Resolution {
  const span = toMs - fromMs;
  const minutesKept = fromMs >= nowMs - minuteRetentionMs;
  const hourly = { table: "hour" as const, bucketMs: niceHours(span / MAX_POINTS) };
  const series =
    minutesKept && span <= 3 * HOUR_MS
      ? { table: "minute" as const, bucketMs: MINUTE_MS }
      : minutesKept && span <= 36 * HOUR_MS
        ? { table: "minute" as const, bucketMs: 5 * MINUTE_MS }
        : hourly;
  const heatmap =
    minutesKept && span <= 3 * HOUR_MS
      ? { heatmapTable: "minute" as const, heatmapBucketMs: 5 * MINUTE_MS }
      : { heatmapTable: "hour" as const, heatmapBucketMs: niceHours(span / MAX_COLUMNS) };
  return { ...series, ...heatmap };
}

/** Bucket starts covering [fromMs, toMs), the first one aligned down. */
export function bucketStarts(fromMs: number, toMs: number, bucketMs: number): number[] {
  const starts: number[] = [];
  for (let t = floorTo(fromMs, bucketMs); t < toMs; t += bucketMs) starts.push(t);
  return starts;
}

/**
 * The rules that turn stored rollups into GPU time, once per kind of row:
 * `MINUTE_RULES` for a minute (in JS: minutes are packed by GPU-hour,
 * minute-block.ts, which SQL cannot read) and `HOUR_SQL` for an hour row (in
 * SQL, aggregated in the database). A minute stands for one minute; an hour
 * row for `samples` minutes (the minutes it had readings in), so that a sum
 * over hours equals the same sum over their minutes (usage-agree.test.ts
 * holds the two to it).
 */
export interface RowRules<Value, Bucket> {
  /** Minutes the row stands for. */
  minutes: Value;
  /** Utilization × minutes (percent-minutes), null-safe. */
  utilMinutes: Value;
  /** Minutes that have a utilization value. */
  utilCounted: Value;
  /** Minutes with at least one process. */
  busyMinutes: Value;
  /** Minutes below the idle threshold. */
  idleMinutes: Value;
  bucket: Bucket;
}

/** What the minute rules read of a minute: a decoded row, or a block's columns read in place (minute-sums.ts). */
export type MinuteFacts = Pick<MinuteRow, "utilAvg" | "busy">;

export const MINUTE_RULES: RowRules<(row: MinuteFacts) => number, (minuteMs: number, bucketMs: number) => number> = {
  minutes: () => 1,
  utilMinutes: (row) => row.utilAvg ?? 0,
  utilCounted: (row) => (row.utilAvg === null ? 0 : 1),
  busyMinutes: (row) => (row.busy ? 1 : 0),
  idleMinutes: (row) => (row.utilAvg !== null && row.utilAvg < IDLE_UTIL_PCT ? 1 : 0),
  bucket: (minuteMs, bucketMs) => floorTo(minuteMs, bucketMs),
};

/** SQL fragments over GpuHour or a tier summed from it (alias `r`; day-tier.ts). */
export interface TableSql extends RowRules<Prisma.Sql, (bucketMs: number) => Prisma.Sql> {
  /** Hour rows of the simulated fleet the row stands for. */
  simulatedRows: Prisma.Sql;
  from: Prisma.Sql;
  /** The table's quoted name, for a subquery over the same rollups. */
  table: string;
  /** The time column's quoted name, without the alias. */
  timeColumn: string;
  time: string;
}

const idle = Prisma.raw(String(IDLE_UTIL_PCT));

export const HOUR_SQL: TableSql = {
  from: Prisma.raw(`"GpuHour" r`),
  table: `"GpuHour"`,
  timeColumn: `"hour"`,
  time: `r."hour"`,
  minutes: Prisma.raw(`r."samples"`),
  utilMinutes: Prisma.raw(`COALESCE(r."utilAvg" * r."samples", 0)`),
  utilCounted: Prisma.raw(`CASE WHEN r."utilAvg" IS NULL THEN 0 ELSE r."samples" END`),
  busyMinutes: Prisma.raw(`r."busyMinutes"`),
  idleMinutes: Prisma.sql`CASE WHEN r."utilAvg" < ${idle} THEN r."samples" ELSE 0 END`,
  simulatedRows: Prisma.raw(`CASE WHEN r."simulated" THEN 1 ELSE 0 END`),
  bucket: (bucketMs) => bucketSeconds(`r."hour"`, bucketMs / 1000),
};
