import { Prisma } from "@prisma/client";
import { db } from "@/server/core/db";
import { sumMinutes, type MinuteSumKey } from "@/server/history/minute-sums";
import { DAY_SQL, MONTH_SQL, SLOT_HOURS, SLOT_SQL, splitByTier, summedWhere, type Span } from "@/server/history/day-tier";
import { HOUR_SQL, type RollupTable, type TableSql } from "@/server/history/resolution";
import { num } from "@/server/core/sql-dialect";
import { DAY_MS, HOUR_MS } from "@/server/minutes/minute-row";
import { notWhileSlicedWhere } from "@/server/history/unit-weights";

/** What GPU time can be grouped by: a minute sum's fields, and a GPU's model (its name in the inventory). */
export type GpuTimeKey = MinuteSumKey | "model";

export interface GpuTimeQuery {
  /** Which rollups answer (resolution.ts's plan): the minutes, summed in JS, or the hours, in SQL. */
  table: RollupTable;
  fromMs: number;
  toMs: number;
  by: readonly GpuTimeKey[];
  bucketMs?: number;
  /** Only the GPU time this person booked. */
  booker?: string;
  /** Only the GPU time nobody booked. */
  unbooked?: boolean;
  /** Leaves out a split GPU's own time while its slices report (unit-weights.ts). */
  notWhileSliced?: boolean;
  /**
   * Only `utilMinutes` and `utilCounted` are wanted (the series and
   * heatmap): over hours, summed days may then be read from their slots
   * (day-tier.ts's GpuSlot), and the other sums may read 0.
   */
  utilizationOnly?: boolean;
}

/** One group's GPU time; a field the query does not group by is empty ("" or null). */
export interface GpuTimeSums {
  bucketStartMs: number;
  gpuUuid: string;
  hostId: string;
  bookedByUserId: string | null;
  runnerUserId: string | null;
  model: string;
  minutes: number;
  utilMinutes: number;
  utilCounted: number;
  busyMinutes: number;
  idleMinutes: number;
  /** More than 0 when some of it is the simulated fleet's (minutes, or hour rows). */
  simulated: number;
}

const UNKNOWN_MODEL = "unknown model";

/**
 * GPU time over a range, grouped: the one sum behind the usage page's
 * series, heatmap, tables and use without a booking, whichever rollups
 * answer. Over minutes it is `sumMinutes` (a block's columns, in JS); over
 * hours one GROUP BY of `HOUR_SQL` in the database. The two count by the
 * same rules (resolution.ts; usage-agree.test.ts holds them to it).
 */
export async function sumGpuTime(query: GpuTimeQuery): Promise<GpuTimeSums[]> {
  return query.table === "minute" ? fromMinutes(query) : fromHours(query);
}

async function fromMinutes(query: GpuTimeQuery): Promise<GpuTimeSums[]> {
  const byModel = query.by.includes("model");
  // A model is a GPU's: grouped by GPU here, named below (the caller folds GPUs of one model).
  const by = [...new Set(query.by.map((field): MinuteSumKey => (field === "model" ? "gpu" : field)))];
  const sums = await sumMinutes(query.fromMs, query.toMs, { by, bucketMs: query.bucketMs, booker: query.booker, unbooked: query.unbooked, notWhileSliced: query.notWhileSliced });
  const models = byModel ? await modelsOf([...new Set([...sums.values()].map((sum) => sum.group.gpuUuid))]) : null;
  // Field by field, not spread: a day's series at 5 minutes is thousands of groups.
  const out: GpuTimeSums[] = [];
  for (const { group, minutes, utilMinutes, utilCounted, busyMinutes, idleMinutes, simulated } of sums.values()) {
    const { bucketStartMs, gpuUuid, hostId, bookedByUserId, runnerUserId } = group;
    const model = models ? (models.get(gpuUuid) ?? UNKNOWN_MODEL) : "";
    out.push({ bucketStartMs, gpuUuid, hostId, bookedByUserId, runnerUserId, model, minutes, utilMinutes, utilCounted, busyMinutes, idleMinutes, simulated });
  }
  return out;
}

async function modelsOf(uuids: string[]): Promise<Map<string, string>> {
  const gpus = await db().gpu.findMany({ where: { uuid: { in: uuids } }, select: { uuid: true, name: true } });
  return new Map(gpus.map((gpu) => [gpu.uuid, gpu.name]));
}

/** The name each group's column answers under. */
const COLUMN_ALIAS: Record<GpuTimeKey, string> = { bucket: "bucket", gpu: "gpu", host: "host", booker: "booker", runner: "runner", model: "model" };

const COLUMNS: Record<GpuTimeKey, (t: TableSql, bucketMs: number) => Prisma.Sql> = {
  bucket: (t, bucketMs) => Prisma.sql`${t.bucket(bucketMs)} AS "bucket"`,
  gpu: () => Prisma.raw(`r."gpuUuid" AS "gpu"`),
  host: () => Prisma.raw(`r."hostId" AS "host"`),
  booker: () => Prisma.raw(`r."bookedByUserId" AS "booker"`),
  runner: () => Prisma.raw(`r."runnerUserId" AS "runner"`),
  model: () => Prisma.raw(`COALESCE(g."name", '${UNKNOWN_MODEL}') AS "model"`),
};

const timeWhere = (t: TableSql, span: Span) => Prisma.sql`${Prisma.raw(t.time)} >= ${new Date(span.fromMs)} AND ${Prisma.raw(t.time)} < ${new Date(span.toMs)}`;

/** One tier's GROUP BY over part of the range (`time`): the groups and their sums by the table's rules. */
function partSql(t: TableSql, query: GpuTimeQuery, time: Prisma.Sql, sliced?: Prisma.Sql): Prisma.Sql {
  const groups = query.by.map((field) => COLUMNS[field](t, query.bucketMs ?? 0));
  const where = [
    time,
    ...(query.booker !== undefined ? [Prisma.sql`r."bookedByUserId" = ${query.booker}`] : []),
    ...(query.unbooked ? [Prisma.sql`r."bookedByUserId" IS NULL`] : []),
    ...(sliced ? [sliced] : []),
  ];
  const join = query.by.includes("model") ? Prisma.raw(`LEFT JOIN "Gpu" g ON g."uuid" = r."gpuUuid"`) : Prisma.empty;
  // Utilization alone: the other sums are neither computed nor carried back (a 7-day heatmap is a row a GPU-hour).
  const sums = query.utilizationOnly
    ? Prisma.sql`SUM(${t.utilMinutes}) AS used, SUM(${t.utilCounted}) AS counted`
    : Prisma.sql`SUM(${t.minutes}) AS minutes, SUM(${t.utilMinutes}) AS used, SUM(${t.utilCounted}) AS counted,
           SUM(${t.busyMinutes}) AS busy, SUM(${t.idleMinutes}) AS idle, SUM(${t.simulatedRows}) AS sim`;
  return Prisma.sql`SELECT ${Prisma.join(groups)}, ${sums}
    FROM ${t.from} ${join}
    WHERE ${Prisma.join(where, " AND ")}
    GROUP BY ${Prisma.raw(query.by.map((_, i) => String(i + 1)).join(", "))}`;
}

/** A group's row; a utilization-only sum carries `used` and `counted` alone. */
type HourSumsRow = Partial<Record<GpuTimeKey, unknown>> & { minutes?: unknown; used: unknown; counted: unknown; busy?: unknown; idle?: unknown; sim?: unknown };

/**
 * Over hours: whole months and days the tiers have summed are read from
 * them (day-tier.ts: `MONTH_SQL`, `DAY_SQL`, or the slots of `SLOT_SQL` for
 * the utilization alone, the same sums), the rest from GpuHour, one
 * statement. The days answer unless the groups need buckets shorter than a
 * day (the slots: shorter than 6 hours), or a split GPU's own time is to be
 * left out (`notWhileSliced` looks at each hour's slices, which a day row no
 * longer tells apart); months only where nothing is grouped by bucket.
 */
async function fromHours(query: GpuTimeQuery): Promise<GpuTimeSums[]> {
  const bucketMs = query.by.includes("bucket") ? (query.bucketMs ?? 0) : 0;
  const slotHours = slotHoursFor(query, bucketMs);
  const wholeDays = bucketMs % DAY_MS === 0 || slotHours !== null;
  const sliced = query.notWhileSliced ? await notWhileSlicedWhere(HOUR_SQL) : null;
  const split =
    wholeDays && (sliced === null || !sliced.split)
      ? await splitByTier(query.fromMs, query.toMs, { months: bucketMs === 0 })
      : { months: [], days: [], hours: [{ fromMs: query.fromMs, toMs: query.toMs }] };
  const parts = [
    ...split.hours.map((span) => partSql(HOUR_SQL, query, timeWhere(HOUR_SQL, span), sliced?.where)),
    ...(split.days.length === 0 ? [] : [slotHours === null ? partSql(DAY_SQL, query, summedWhere("day", split.days)) : partSql(SLOT_SQL, query, summedWhere("slot", split.days, slotHours))]),
    ...(split.months.length === 0 ? [] : [partSql(MONTH_SQL, query, summedWhere("month", split.months))]),
  ];
  const keys = Prisma.raw(query.by.map((field) => `"${COLUMN_ALIAS[field]}"`).join(", "));
  const rows =
    parts.length === 1
      ? await db().$queryRaw<HourSumsRow[]>(parts[0]!)
      : await db().$queryRaw<HourSumsRow[]>`
    SELECT ${keys}, ${query.utilizationOnly ? Prisma.sql`SUM(used) AS used, SUM(counted) AS counted` : Prisma.sql`SUM(minutes) AS minutes, SUM(used) AS used, SUM(counted) AS counted, SUM(busy) AS busy, SUM(idle) AS idle, SUM(sim) AS sim`}
    FROM (${Prisma.join(parts, " UNION ALL ")}) p
    GROUP BY ${keys}`;
  const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
  return rows.map((row) => ({
    bucketStartMs: num(row.bucket) * 1000,
    gpuUuid: text(row.gpu) ?? "",
    hostId: text(row.host) ?? "",
    bookedByUserId: text(row.booker),
    runnerUserId: text(row.runner),
    model: text(row.model) ?? "",
    minutes: num(row.minutes),
    utilMinutes: num(row.used),
    utilCounted: num(row.counted),
    busyMinutes: num(row.busy),
    idleMinutes: num(row.idle),
    simulated: num(row.sim),
  }));
}

/**
 * The slots' length that answers a utilization-only sum over summed days:
 * the longest that its buckets are whole numbers of, without a filter by
 * booker (a slot keeps none) nor a group a slot does not keep; else null.
 */
function slotHoursFor(query: GpuTimeQuery, bucketMs: number): (typeof SLOT_HOURS)[number] | null {
  if (!query.utilizationOnly || bucketMs === 0 || query.booker !== undefined || query.unbooked || query.notWhileSliced) return null;
  if (!query.by.every((field) => field === "bucket" || field === "gpu" || field === "host" || field === "model")) return null;
  return [...SLOT_HOURS].reverse().find((hours) => bucketMs % (hours * HOUR_MS) === 0) ?? null;
}
