import { Prisma } from "@prisma/client";
import { chunks } from "@/lib/chunks";
import { quoted, rowsSelect } from "@/server/core/json-rows";
import { foldIntoBlocks, hourSpan, readBlocks, readMinutes, type Client } from "@/server/minutes/minute-store";
import { HOUR_MS, floorTo, type MinuteRow } from "@/server/minutes/minute-row";
import { rollupHours } from "@/server/history/hour-tally";
import { forgetDaySums } from "@/server/history/day-tier";
import { claimWriteLock } from "@/server/history/write-lock";
import { mergeMinuteRows, type HourRow } from "@/server/history/rollup-math";

/**
 * Writes of the usage history: the minutes, merged or filled in under the
 * rollups' write lock (their blocks are server/minutes/minute-store.ts's,
 * the one module that reads, writes and prunes GpuMinuteBlock), and the
 * hour rows (GpuHour), written as one JSON parameter a batch
 * (server/core/json-rows.ts).
 */

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

const HOUR_COLUMNS = {
  gpuUuid: "text",
  hour: "timestamp(3)",
  ...MEASURE_COLUMNS,
  busyMinutes: "integer",
  simulated: "boolean",
} as const satisfies Record<keyof HourRow, string>;

/**
 * Rows per statement. The rows travel as one JSON text parameter, so the
 * limit is only on how long one statement holds the database.
 */
const ROWS_PER_STATEMENT = 1000;

/**
 * Folds minutes into their stored blocks (server/minutes/minute-store.ts,
 * `foldIntoBlocks`) under the write lock: `claimWriteLock` in the caller's
 * transaction, or in one of its own when given the client itself, so that
 * two writers of one block never both read it before either writes.
 */
async function foldMinutes(client: Client, rows: MinuteRow[], combine: (stored: MinuteRow, incoming: MinuteRow) => MinuteRow): Promise<MinuteRow[]> {
  if (rows.length === 0) return [];
  if ("$transaction" in client) return client.$transaction((tx) => foldMinutes(tx, rows, combine), { maxWait: 30_000, timeout: 120_000 });
  await claimWriteLock(client);
  return foldIntoBlocks(client, rows, combine);
}

/**
 * Writes minute rows; a minute already stored (its first part was written
 * by an earlier flush) is merged with the new part, sample counts added
 * (`mergeMinuteRows`). Answers the written minutes as now stored.
 */
export async function upsertMinuteRows(client: Client, rows: MinuteRow[]): Promise<MinuteRow[]> {
  return foldMinutes(client, rows, mergeMinuteRows);
}

/** Writes minute rows that are not there yet and leaves existing ones alone (synthetic history never overwrites readings). */
export async function insertMissingMinuteRows(client: Client, rows: MinuteRow[]): Promise<void> {
  await foldMinutes(client, rows, (stored) => stored);
}

const REPLACE_HOUR = Prisma.raw(
  Object.keys(HOUR_COLUMNS)
    .filter((column) => column !== "gpuUuid" && column !== "hour")
    .map((column) => `"${column}" = excluded."${column}"`)
    .join(", "),
);

/**
 * Writes hour rows, replacing what was there: an hour is always recomputed
 * from all its minutes. The day tier's sums of their days are dropped
 * (`forgetDaySums`), so that reports read those days' hours until the
 * retention job sums them again (day-tier.ts).
 */
export async function upsertHourRows(client: Client, rows: HourRow[]): Promise<void> {
  for (const part of chunks(rows, ROWS_PER_STATEMENT)) {
    await client.$executeRaw`INSERT INTO "GpuHour" (${quoted(HOUR_COLUMNS)}) ${rowsSelect(part, HOUR_COLUMNS)}
ON CONFLICT ("gpuUuid", "hour") DO UPDATE SET ${REPLACE_HOUR}`;
  }
  await forgetDaySums(client, rows.map((row) => row.hour.getTime()));
}

/**
 * How many minutes of one hour each of these GPUs has stored, and their
 * samples added up. Every write of a minute adds samples, so these two
 * numbers tell whether anyone (another instance, a backfill) wrote minutes
 * of the hour since we last counted them.
 */
export async function countHourMinutes(client: Client, hourMs: number, gpuUuids: string[]): Promise<Map<string, { minutes: number; samples: number }>> {
  const totals = new Map<string, { minutes: number; samples: number }>();
  if (gpuUuids.length === 0) return totals;
  for (const [uuid, rows] of await readBlocks(client, [hourSpan(hourMs, gpuUuids)])) {
    totals.set(uuid, { minutes: rows.length, samples: rows.reduce((sum, row) => sum + row.samples, 0) });
  }
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

/** The rollups' write lock (write-lock.ts), for the writers that import it from here. */
export { claimWriteLock };
