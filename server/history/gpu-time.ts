import { Prisma } from "@prisma/client";
import { db } from "@/server/core/db";
import { sumMinutes, type MinuteSumKey } from "@/server/history/minute-sums";
import { HOUR_SQL, type RollupTable } from "@/server/history/resolution";
import { num } from "@/server/core/sql-dialect";
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
  return [...sums.values()].map(({ group, ...totals }) => ({ ...group, model: models ? (models.get(group.gpuUuid) ?? UNKNOWN_MODEL) : "", ...totals }));
}

async function modelsOf(uuids: string[]): Promise<Map<string, string>> {
  const gpus = await db().gpu.findMany({ where: { uuid: { in: uuids } }, select: { uuid: true, name: true } });
  return new Map(gpus.map((gpu) => [gpu.uuid, gpu.name]));
}

const COLUMNS: Record<GpuTimeKey, (bucketMs: number) => Prisma.Sql> = {
  bucket: (bucketMs) => Prisma.sql`${HOUR_SQL.bucket(bucketMs)} AS "bucket"`,
  gpu: () => Prisma.raw(`r."gpuUuid" AS "gpu"`),
  host: () => Prisma.raw(`r."hostId" AS "host"`),
  booker: () => Prisma.raw(`r."bookedByUserId" AS "booker"`),
  runner: () => Prisma.raw(`r."runnerUserId" AS "runner"`),
  model: () => Prisma.raw(`COALESCE(g."name", '${UNKNOWN_MODEL}') AS "model"`),
};

type HourSumsRow = Partial<Record<GpuTimeKey, unknown>> & { minutes: unknown; used: unknown; counted: unknown; busy: unknown; idle: unknown; sim: unknown };

async function fromHours(query: GpuTimeQuery): Promise<GpuTimeSums[]> {
  const t = HOUR_SQL;
  const time = Prisma.raw(t.time);
  const groups = query.by.map((field) => COLUMNS[field](query.bucketMs ?? 0));
  const where = [
    Prisma.sql`${time} >= ${new Date(query.fromMs)} AND ${time} < ${new Date(query.toMs)}`,
    ...(query.booker !== undefined ? [Prisma.sql`r."bookedByUserId" = ${query.booker}`] : []),
    ...(query.unbooked ? [Prisma.sql`r."bookedByUserId" IS NULL`] : []),
    ...(query.notWhileSliced ? [await notWhileSlicedWhere(t)] : []),
  ];
  const join = query.by.includes("model") ? Prisma.raw(`LEFT JOIN "Gpu" g ON g."uuid" = r."gpuUuid"`) : Prisma.empty;
  const rows = await db().$queryRaw<HourSumsRow[]>`
    SELECT ${Prisma.join(groups)},
           SUM(${t.minutes}) AS minutes, SUM(${t.utilMinutes}) AS used, SUM(${t.utilCounted}) AS counted,
           SUM(${t.busyMinutes}) AS busy, SUM(${t.idleMinutes}) AS idle, SUM(CASE WHEN r."simulated" THEN 1 ELSE 0 END) AS sim
    FROM ${t.from} ${join}
    WHERE ${Prisma.join(where, " AND ")}
    GROUP BY ${Prisma.raw(query.by.map((_, i) => String(i + 1)).join(", "))}`;
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
