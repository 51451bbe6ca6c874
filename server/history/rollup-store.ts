import { Prisma } from "@prisma/client";
import { chunks } from "@/lib/chunks";
import { sqlDialect } from "@/server/history/sql-dialect";
import { decodeMinuteBlock, encodeMinuteBlock } from "@/server/minutes/minute-block";
import { DECODES_PER_TURN, hourSpan, nextTurn, readBlocks, readMinutes, type Client } from "@/server/minutes/read-minutes";
import { setAsideBlocks, type UnreadableBlock } from "@/server/minutes/unreadable-blocks";
import { rollupHours } from "@/server/history/hour-tally";
import { DAY_MS, HOUR_MS, floorTo, mergeMinuteRows, type HourRow, type MinuteRow } from "@/server/history/rollup-math";

/**
 * Reads and writes of the minutes (GpuMinuteBlock: a GPU-hour of minutes a
 * row, packed by minute-block.ts) and of GpuHour: INSERT … SELECT … ON
 * CONFLICT from rows sent as one JSON parameter (see `rowsSelect`), which
 * SQLite and PostgreSQL both run, so that a batch is one statement per
 * thousand rows rather than one per row, and one parameter rather than
 * fifteen a row.
 */

/** Reads of minutes are server/minutes/read-minutes.ts's; history code reads them through here. */
export { readMinutePages, readMinutes, type Client } from "@/server/minutes/read-minutes";

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

const BLOCK_COLUMNS = {
  gpuUuid: "text",
  hour: "timestamp(3)",
  data: "bytea",
} as const;

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
  // Bytes travel as hex: unhex() on SQLite (3.41+; better-sqlite3 12 bundles 3.5x), decode() on PostgreSQL.
  const json = JSON.stringify(
    rows.map((row) => names.map((name) => {
      const value = (row as Record<string, unknown>)[name];
      if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex");
      return value instanceof Date ? value.toISOString().replace("Z", "+00:00") : value;
    })),
  );
  if (sqlDialect() === "postgresql") {
    const picks = names.map((name, i) => (columns[name] === "bytea" ? `decode(r.value->>${i}, 'hex')` : `(r.value->>${i})::${columns[name]}`)).join(", ");
    return Prisma.sql`SELECT ${Prisma.raw(picks)} FROM json_array_elements(${json}::json) AS r WHERE true`;
  }
  const picks = names.map((name, i) => (columns[name] === "bytea" ? `unhex(json_extract(r.value, '$[${i}]'))` : `json_extract(r.value, '$[${i}]')`)).join(", ");
  return Prisma.sql`SELECT ${Prisma.raw(picks)} FROM json_each(${json}) AS r WHERE true`;
}

/** Blocks per statement: a block is a few hundred bytes to 2 KB, so a statement carries some hundreds of KB. */
const BLOCKS_PER_STATEMENT = 200;


interface Block {
  gpuUuid: string;
  hour: Date;
  data: Uint8Array;
}

/** Minute rows by hour, then by GPU, each GPU's in minute order. */
export function byHourAndGpu(rows: readonly MinuteRow[]): Map<number, Map<string, MinuteRow[]>> {
  const hours = new Map<number, Map<string, MinuteRow[]>>();
  for (const row of rows) {
    const hourMs = floorTo(row.minute.getTime(), HOUR_MS);
    let gpus = hours.get(hourMs);
    if (!gpus) hours.set(hourMs, (gpus = new Map()));
    const list = gpus.get(row.gpuUuid);
    if (list) list.push(row);
    else gpus.set(row.gpuUuid, [row]);
  }
  for (const gpus of hours.values()) for (const list of gpus.values()) list.sort((a, b) => a.minute.getTime() - b.minute.getTime());
  return hours;
}

/** Writes whole blocks, replacing what was stored for their GPU-hours. */
async function writeBlocks(client: Client, blocks: Block[]): Promise<void> {
  for (const part of chunks(blocks, BLOCKS_PER_STATEMENT)) {
    await client.$executeRaw`INSERT INTO "GpuMinuteBlock" (${quoted(BLOCK_COLUMNS)}) ${rowsSelect(part, BLOCK_COLUMNS)}
ON CONFLICT ("gpuUuid", "hour") DO UPDATE SET "data" = excluded."data"`;
  }
}

/**
 * Folds minutes into their stored blocks: reads the blocks they touch,
 * `combine`s each minute already stored with the new one, writes the blocks
 * back in one statement per batch, and answers the written minutes as
 * stored (Float32 measures), so that an hour made of them is made of exactly
 * the stored numbers. A read before a write: it takes the write lock
 * (`claimWriteLock`) in the caller's transaction, or in one of its own when
 * given the client itself, so that two writers of one block never both read
 * it before either writes. A stored block that cannot be read is set aside
 * (unreadable-blocks.ts) and its GPU-hour written anew from these minutes.
 */
async function foldIntoBlocks(client: Client, rows: MinuteRow[], combine: (stored: MinuteRow, incoming: MinuteRow) => MinuteRow): Promise<MinuteRow[]> {
  if (rows.length === 0) return [];
  if ("$transaction" in client) return client.$transaction((tx) => foldIntoBlocks(tx, rows, combine), { maxWait: 30_000, timeout: 120_000 });
  await claimWriteLock(client);
  const written: MinuteRow[] = [];
  for (const [hourMs, gpus] of byHourAndGpu(rows)) {
    for (const part of chunks([...gpus.keys()], BLOCKS_PER_STATEMENT)) {
      const unreadable: UnreadableBlock[] = [];
      const stored = await readBlocks(client, [hourSpan(hourMs, part)], unreadable);
      // A block that cannot be read is kept aside and its GPU-hour starts again from these minutes: the other GPUs' blocks are written.
      await setAsideBlocks(client, unreadable);
      const blocks: Block[] = [];
      for (const [i, uuid] of part.entries()) {
        if (i > 0 && i % DECODES_PER_TURN === 0) await nextTurn();
        const minutes = new Map(stored.get(uuid)?.map((row) => [row.minute.getTime(), row]));
        for (const row of gpus.get(uuid)!) {
          const old = minutes.get(row.minute.getTime());
          minutes.set(row.minute.getTime(), old ? combine(old, row) : row);
        }
        const block = { gpuUuid: uuid, hour: new Date(hourMs), data: encodeMinuteBlock(hourMs, [...minutes.values()]) };
        blocks.push(block);
        const touched = new Set(gpus.get(uuid)!.map((row) => row.minute.getTime()));
        written.push(...decodeMinuteBlock(uuid, hourMs, block.data).filter((row) => touched.has(row.minute.getTime())));
      }
      await writeBlocks(client, blocks);
    }
  }
  return written;
}

/**
 * Writes minute rows; a minute already stored (its first part was written
 * by an earlier flush) is merged with the new part, sample counts added
 * (`mergeMinuteRows`). Answers the written minutes as now stored.
 */
export async function upsertMinuteRows(client: Client, rows: MinuteRow[]): Promise<MinuteRow[]> {
  return foldIntoBlocks(client, rows, mergeMinuteRows);
}

/** Writes minute rows that are not there yet and leaves existing ones alone (synthetic history never overwrites readings). */
export async function insertMissingMinuteRows(client: Client, rows: MinuteRow[]): Promise<void> {
  await foldIntoBlocks(client, rows, (stored) => stored);
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
 * Drops the day tier's sums (GpuDay) of the days these times fall in: their
 * hour rows changed or went. One statement when none of them is summed (the
 * flush's usual case: today is not summed before it ends).
 */
export async function forgetDaySums(client: Client, times: readonly number[]): Promise<void> {
  const days = [...new Set(times.map((ms) => floorTo(ms, DAY_MS)))].map((ms) => new Date(ms));
  if (days.length === 0) return;
  const { count } = await client.gpuDaySummed.deleteMany({ where: { day: { in: days } } });
  if (count > 0) await client.gpuDay.deleteMany({ where: { day: { in: days } } });
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


/** The first stored minute (ms), of any GPU; null when none is. */
export async function firstStoredMinute(client: Client): Promise<number | null> {
  const first = await client.gpuMinuteBlock.findFirst({ orderBy: { hour: "asc" }, select: { hour: true } });
  if (!first) return null;
  const hourMs = first.hour.getTime();
  const minutes = (await readMinutes(client, hourMs, hourMs + HOUR_MS)).map((row) => row.minute.getTime());
  // The hour's blocks all unreadable: its start stands for them.
  return minutes.length > 0 ? Math.min(...minutes) : hourMs;
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
