import { Prisma, type PrismaClient } from "@prisma/client";
import { chunks } from "@/lib/chunks";
import { num, sqlDialect } from "@/server/history/sql-dialect";
import { rollupHours } from "@/server/history/hour-tally";
import { HOUR_MS, floorTo, type HourRow, type MinuteRow } from "@/server/history/rollup-math";

/**
 * Writes of GpuMinute and GpuHour: INSERT … SELECT … ON CONFLICT from rows
 * sent as one JSON parameter (see `rowsSelect`), which SQLite and PostgreSQL
 * both run, so that a batch is one statement per thousand rows rather than
 * one per row, and one parameter rather than fifteen a row.
 */

export type Client = PrismaClient | Prisma.TransactionClient;

/**
 * The columns written, with their PostgreSQL types (what `json_to_recordset`
 * needs to read a row; SQLite reads each value with `json_extract`).
 */
const MEASURE_COLUMNS = {
  hostId: "text",
  samples: "integer",
  utilAvg: "double precision",
  utilMax: "double precision",
  memUsedAvg: "double precision",
  memUsedMax: "double precision",
  memTotal: "double precision",
  powerAvg: "double precision",
  tempAvg: "double precision",
  tempMax: "double precision",
  bookedByUserId: "text",
  runnerUserId: "text",
} as const;

const MINUTE_COLUMNS = {
  gpuUuid: "text",
  minute: "timestamp(3)",
  ...MEASURE_COLUMNS,
  busy: "boolean",
  simulated: "boolean",
} as const satisfies Record<keyof MinuteRow, string>;

const HOUR_COLUMNS = {
  gpuUuid: "text",
  hour: "timestamp(3)",
  ...MEASURE_COLUMNS,
  busyMinutes: "integer",
  simulated: "boolean",
} as const satisfies Record<keyof HourRow, string>;

type Columns = Readonly<Record<string, string>>;

/**
 * Rows per statement. The rows travel as one JSON text parameter, so the
 * limit is only on how long one statement holds the database.
 */
const ROWS_PER_STATEMENT = 1000;

const quoted = (columns: Columns) => Prisma.raw(Object.keys(columns).map((name) => `"${name}"`).join(", "));

/**
 * A SELECT of the rows, for `INSERT INTO … (columns) SELECT …`: the rows go
 * as one JSON parameter that the database unpacks, not as a bound parameter
 * per value. Prisma compiles every statement with its parameters in its
 * query compiler (WebAssembly) and the adapter maps and binds each one: 15
 * parameters a row made that most of a flush's CPU. Times are written as
 * the SQLite adapter writes a DateTime (`2026-11-30T10:00:00.000+00:00`),
 * so that a row meets the rows Prisma wrote (and the keys compare as text);
 * PostgreSQL reads them into `timestamp(3)`, the type of Prisma's DateTime.
 * `WHERE true`: SQLite's parser needs it before an upsert's ON CONFLICT.
 */
function rowsSelect<T extends object>(rows: T[], columns: Columns): Prisma.Sql {
  const names = Object.keys(columns);
  const json = JSON.stringify(
    rows.map((row) => names.map((name) => {
      const value = (row as Record<string, unknown>)[name];
      return value instanceof Date ? value.toISOString().replace("Z", "+00:00") : value;
    })),
  );
  if (sqlDialect() === "postgresql") {
    const picks = names.map((name, i) => `(r.value->>${i})::${columns[name]}`).join(", ");
    return Prisma.sql`SELECT ${Prisma.raw(picks)} FROM json_array_elements(${json}::json) AS r WHERE true`;
  }
  const picks = names.map((_, i) => `json_extract(r.value, '$[${i}]')`).join(", ");
  return Prisma.sql`SELECT ${Prisma.raw(picks)} FROM json_each(${json}) AS r WHERE true`;
}

const OLD = `"GpuMinute"`;

/** Sample-weighted mean of the stored and the incoming value; see `mergeMinuteRows`. */
function weightedSql(column: string): string {
  const a = `${OLD}."${column}"`;
  const b = `excluded."${column}"`;
  return `CASE WHEN ${a} IS NULL THEN ${b} WHEN ${b} IS NULL THEN ${a} ELSE (${a} * ${OLD}."samples" + ${b} * excluded."samples") / (${OLD}."samples" + excluded."samples") END`;
}

function largerSql(column: string): string {
  const a = `${OLD}."${column}"`;
  const b = `excluded."${column}"`;
  return `CASE WHEN ${a} IS NULL THEN ${b} WHEN ${b} IS NULL THEN ${a} WHEN ${a} > ${b} THEN ${a} ELSE ${b} END`;
}

// Every right-hand side reads the row as it was before this statement, in both databases.
const MERGE_MINUTE = Prisma.raw(
  [
    `"hostId" = excluded."hostId"`,
    `"samples" = ${OLD}."samples" + excluded."samples"`,
    `"utilAvg" = ${weightedSql("utilAvg")}`,
    `"utilMax" = ${largerSql("utilMax")}`,
    `"memUsedAvg" = ${weightedSql("memUsedAvg")}`,
    `"memUsedMax" = ${largerSql("memUsedMax")}`,
    `"memTotal" = COALESCE(excluded."memTotal", ${OLD}."memTotal")`,
    `"powerAvg" = ${weightedSql("powerAvg")}`,
    `"tempAvg" = ${weightedSql("tempAvg")}`,
    `"tempMax" = ${largerSql("tempMax")}`,
    `"bookedByUserId" = COALESCE(excluded."bookedByUserId", ${OLD}."bookedByUserId")`,
    `"runnerUserId" = COALESCE(excluded."runnerUserId", ${OLD}."runnerUserId")`,
    `"busy" = (${OLD}."busy" OR excluded."busy")`,
    `"simulated" = (${OLD}."simulated" AND excluded."simulated")`,
  ].join(",\n  "),
);

/**
 * Writes minute rows; a minute already stored (its first part was written
 * by an earlier flush) is merged with the new part, sample counts added.
 */
export async function upsertMinuteRows(client: Client, rows: MinuteRow[]): Promise<void> {
  for (const part of chunks(rows, ROWS_PER_STATEMENT)) {
    await client.$executeRaw`INSERT INTO "GpuMinute" (${quoted(MINUTE_COLUMNS)}) ${rowsSelect(part, MINUTE_COLUMNS)}
ON CONFLICT ("gpuUuid", "minute") DO UPDATE SET
  ${MERGE_MINUTE}`;
  }
}

/** Writes minute rows that are not there yet and leaves existing ones alone (synthetic history never overwrites readings). */
export async function insertMissingMinuteRows(client: Client, rows: MinuteRow[]): Promise<void> {
  for (const part of chunks(rows, ROWS_PER_STATEMENT)) {
    await client.$executeRaw`INSERT INTO "GpuMinute" (${quoted(MINUTE_COLUMNS)}) ${rowsSelect(part, MINUTE_COLUMNS)}
ON CONFLICT ("gpuUuid", "minute") DO NOTHING`;
  }
}

const REPLACE_HOUR = Prisma.raw(
  Object.keys(HOUR_COLUMNS)
    .filter((column) => column !== "gpuUuid" && column !== "hour")
    .map((column) => `"${column}" = excluded."${column}"`)
    .join(", "),
);

/** Writes hour rows, replacing what was there: an hour is always recomputed from all its minutes. */
export async function upsertHourRows(client: Client, rows: HourRow[]): Promise<void> {
  for (const part of chunks(rows, ROWS_PER_STATEMENT)) {
    await client.$executeRaw`INSERT INTO "GpuHour" (${quoted(HOUR_COLUMNS)}) ${rowsSelect(part, HOUR_COLUMNS)}
ON CONFLICT ("gpuUuid", "hour") DO UPDATE SET ${REPLACE_HOUR}`;
  }
}

/** Key of the PostgreSQL advisory lock that serializes rollup writes across instances (any fixed number; "gpdr"). */
const ROLLUP_LOCK_KEY = 0x67706472;

/**
 * Takes the database's write lock at the start of a transaction that reads
 * before it writes. Prisma opens SQLite transactions deferred: one that has
 * read and then wants to write while another process writes fails at once
 * with SQLITE_BUSY instead of waiting (SQLite's deadlock rule), whereas a
 * transaction whose first statement writes waits its turn. A DELETE of no
 * rows is such a statement. PostgreSQL runs such transactions side by side,
 * so there a transaction-scoped advisory lock makes the rollup writes of
 * several instances take turns: an hour is recomputed from its minutes, and
 * two instances recomputing the same GPU-hour at once (an agent that moved
 * between them) would each miss the other's uncommitted minutes.
 */
export async function claimWriteLock(client: Client): Promise<void> {
  // executeRaw: the lock function returns void, a column type there is no need to read back.
  if (sqlDialect() === "postgresql") await client.$executeRaw`SELECT pg_advisory_xact_lock(${Prisma.raw(String(ROLLUP_LOCK_KEY))})`;
  else await client.$executeRaw`DELETE FROM "GpuHour" WHERE 1 = 0`;
}

const minuteSelect = {
  gpuUuid: true,
  minute: true,
  hostId: true,
  samples: true,
  utilAvg: true,
  utilMax: true,
  memUsedAvg: true,
  memUsedMax: true,
  memTotal: true,
  powerAvg: true,
  tempAvg: true,
  tempMax: true,
  bookedByUserId: true,
  runnerUserId: true,
  busy: true,
  simulated: true,
} satisfies Prisma.GpuMinuteSelect;

/** The stored minutes in [fromMs, toMs), of the given GPUs or all. */
export async function readMinutes(client: Client, fromMs: number, toMs: number, gpuUuids?: string[]): Promise<MinuteRow[]> {
  return client.gpuMinute.findMany({
    where: {
      minute: { gte: new Date(fromMs), lt: new Date(toMs) },
      ...(gpuUuids ? { gpuUuid: { in: gpuUuids } } : {}),
    },
    select: minuteSelect,
  });
}

/**
 * How many minutes of one hour each of these GPUs has stored, and their
 * samples added up: aggregated in the database, one row per GPU. Every
 * write of a minute adds samples, so these two numbers tell whether anyone
 * (another instance, a backfill) wrote minutes of the hour since we last
 * counted them.
 */
export async function countHourMinutes(client: Client, hourMs: number, gpuUuids: string[]): Promise<Map<string, { minutes: number; samples: number }>> {
  const totals = new Map<string, { minutes: number; samples: number }>();
  if (gpuUuids.length === 0) return totals;
  const rows = await client.$queryRaw<{ gpu: string; minutes: unknown; samples: unknown }[]>`
    SELECT "gpuUuid" AS gpu, COUNT(*) AS minutes, SUM("samples") AS samples FROM "GpuMinute"
    WHERE "minute" >= ${new Date(hourMs)} AND "minute" < ${new Date(hourMs + HOUR_MS)} AND "gpuUuid" IN (${Prisma.join(gpuUuids)})
    GROUP BY "gpuUuid"`;
  for (const row of rows) totals.set(row.gpu, { minutes: num(row.minutes), samples: num(row.samples) });
  return totals;
}

/**
 * Recomputes the hour rows of these hours (start times, ms) from the minute
 * rows, for the given GPUs or all. Reads one hour at a time, so that a long
 * backfill never holds more than an hour of the fleet in memory.
 */
export async function recomputeHours(client: Client, hourStarts: Iterable<number>, gpuUuids?: string[]): Promise<number> {
  let written = 0;
  const hours = [...new Set([...hourStarts].map((ms) => floorTo(ms, HOUR_MS)))].sort((a, b) => a - b);
  for (const hourMs of hours) {
    const rows = rollupHours(await readMinutes(client, hourMs, hourMs + HOUR_MS, gpuUuids));
    await upsertHourRows(client, rows);
    written += rows.length;
  }
  return written;
}
