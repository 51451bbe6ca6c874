import { Prisma } from "@prisma/client";
import type { TimeRange } from "@/lib/domain/usage-range";
import type { GpuHistoryPoint, GpuUsageHistory } from "@/lib/domain/usage-types";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { bucketStarts, HOUR_SQL, MINUTE_RULES, planResolution } from "@/server/history/resolution";
import { floorTo, type MinuteRow } from "@/server/minutes/minute-row";
import { readMinutes } from "@/server/minutes/minute-store";
import { num, numOrNull } from "@/server/core/sql-dialect";

export interface GpuHistoryQuery {
  uuid: string;
  range: TimeRange;
  nowMs: number;
  minuteRetentionMs: number;
}

/**
 * One GPU's history beyond the live 15 minutes: per bucket, the mean and
 * peak of utilization, memory, power and temperature, from the minute or
 * hour rollups. Buckets without readings are nulls (gaps in the charts).
 */
export async function getGpuHistory(query: GpuHistoryQuery): Promise<GpuUsageHistory> {
  const { uuid, range } = query;
  const known =
    (await db().gpu.findUnique({ where: { uuid }, select: { uuid: true } })) ??
    (await db().gpuHour.findFirst({ where: { gpuUuid: uuid }, select: { gpuUuid: true } }));
  if (!known) throw new AppError("not_found", "No such GPU");

  const plan = planResolution(range.fromMs, range.toMs, query.nowMs, query.minuteRetentionMs);
  const fromMs = floorTo(range.fromMs, plan.bucketMs);
  const rows = plan.table === "minute" ? bucketsOfMinutes(await readMinutes(db(), fromMs, range.toMs, [uuid]), plan.bucketMs) : await bucketsOfHours(uuid, fromMs, range.toMs, plan.bucketMs);
  const byBucket = new Map(rows.map((row) => [num(row.b) * 1000, row]));
  const points = bucketStarts(fromMs, range.toMs, plan.bucketMs).map((start): GpuHistoryPoint => {
    const row = byBucket.get(start);
    return {
      t: start,
      utilAvg: numOrNull(row?.utilAvg),
      utilMax: numOrNull(row?.utilMax),
      memUsedAvgMiB: numOrNull(row?.memUsedAvg),
      memUsedMaxMiB: numOrNull(row?.memUsedMax),
      memTotalMiB: numOrNull(row?.memTotal),
      powerAvgW: numOrNull(row?.powerAvg),
      tempAvgC: numOrNull(row?.tempAvg),
      tempMaxC: numOrNull(row?.tempMax),
    };
  });
  return { uuid, range: { ...range, bucketMs: plan.bucketMs, source: plan.table }, points };
}

const MEASURES = ["utilAvg", "memUsedAvg", "powerAvg", "tempAvg"] as const;
const PEAKS = ["utilMax", "memUsedMax", "memTotal", "tempMax"] as const;

/** A bucket's means and peaks over hour rows, each hour weighted by the minutes it stands for. */
async function bucketsOfHours(uuid: string, fromMs: number, toMs: number, bucketMs: number): Promise<Record<string, unknown>[]> {
  const t = HOUR_SQL;
  const time = Prisma.raw(t.time);
  // Means weighted by the minutes each row stands for; peaks are peaks.
  const weightedMean = (column: string) =>
    Prisma.sql`SUM(r.${Prisma.raw(`"${column}"`)} * ${t.minutes}) / NULLIF(SUM(CASE WHEN r.${Prisma.raw(`"${column}"`)} IS NULL THEN 0 ELSE ${t.minutes} END), 0)`;
  return db().$queryRaw<Record<string, unknown>[]>`
    SELECT ${t.bucket(bucketMs)} AS b,
           ${weightedMean("utilAvg")} AS "utilAvg", MAX(r."utilMax") AS "utilMax",
           ${weightedMean("memUsedAvg")} AS "memUsedAvg", MAX(r."memUsedMax") AS "memUsedMax", MAX(r."memTotal") AS "memTotal",
           ${weightedMean("powerAvg")} AS "powerAvg",
           ${weightedMean("tempAvg")} AS "tempAvg", MAX(r."tempMax") AS "tempMax"
    FROM ${t.from}
    WHERE r."gpuUuid" = ${uuid} AND ${time} >= ${new Date(fromMs)} AND ${time} < ${new Date(toMs)}
    GROUP BY 1`;
}

/** The same over minutes: plain means, as each stands for one minute (`MINUTE_RULES.minutes`). */
function bucketsOfMinutes(minutes: MinuteRow[], bucketMs: number): Record<string, unknown>[] {
  const buckets = new Map<number, MinuteRow[]>();
  for (const row of minutes) {
    const start = MINUTE_RULES.bucket(row.minute.getTime(), bucketMs);
    const list = buckets.get(start);
    if (list) list.push(row);
    else buckets.set(start, [row]);
  }
  return [...buckets].map(([start, rows]) => {
    const point: Record<string, unknown> = { b: start / 1000 };
    for (const measure of MEASURES) {
      const values = rows.flatMap((row) => (row[measure] === null ? [] : [row[measure]]));
      point[measure] = values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
    }
    for (const peak of PEAKS) {
      const values = rows.flatMap((row) => (row[peak] === null ? [] : [row[peak]]));
      point[peak] = values.length === 0 ? null : Math.max(...values);
    }
    return point;
  });
}
