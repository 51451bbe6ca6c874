import { Prisma } from "@prisma/client";
import { chunks } from "@/lib/chunks";
import { db } from "@/server/core/db";
import { HOUR_MS, floorTo } from "@/server/history/rollup-math";
import { claimWriteLock, recomputeHours, type Client } from "@/server/history/rollup-store";
import { num, numOrNull } from "@/server/history/sql-dialect";

const DAY_MS = 24 * HOUR_MS;
const MINUTES_PER_HOUR = 60;

/**
 * Most rows one statement of the pruning reads or writes: eight GPU-hours
 * of minutes. With SQLite a statement holds the event loop while it runs;
 * a batch of 500 rows held it 28 ms at the median on a machine at load 18
 * on 2 cores, one of 1,000 rows 47–60 ms (docs/benchmark.md).
 */
const ROWS_PER_STATEMENT = 500;

export interface RetentionPolicy {
  /** Days of minute rollups kept. */
  minuteDays: number;
  /** Days of hourly rollups kept. */
  hourDays: number;
}

export interface PruneOptions {
  /** Most rows one statement reads or deletes (default 500). */
  rowsPerStatement?: number;
  /** Awaited between two batches, so that ticks and requests run in between (default: one turn of the event loop). */
  pause?: () => Promise<void>;
  /** Stops after the batch in progress (shutdown, loss of leadership); the next run continues from what is stored. */
  signal?: AbortSignal;
}

export interface PruneResult {
  /** Minute rows deleted. */
  minutes: number;
  /** Hour rows deleted. */
  hours: number;
  /** Hour rows written from their minutes before these were deleted (missing or stale ones). */
  hoursRolledUp: number;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Deletes rollups older than the policy allows, in small batches.
 *
 * Minutes go by whole hours, and only once their hour is complete in
 * GpuHour: an hour row that is missing, or that counts fewer minutes than
 * are stored (minutes written without their hour: an older version, a
 * backfill) or other busy minutes or another mean utilization, is first
 * computed again from its minutes, in the transaction that deletes them.
 * So every report of an older range reads from the hours what the minutes
 * said. An hour row that counts more minutes than are left is kept as it
 * is: its minutes were pruned in part before (by a version that cut at the
 * minute), and it is the fuller record.
 *
 * Nothing is kept between runs: each one starts from the oldest stored
 * minute, so a run stopped halfway (a restart, a new leader) is finished
 * by the next. Hours go once their start is older than the cutoff.
 */
export async function pruneHistory(now: Date, policy: RetentionPolicy, options: PruneOptions = {}): Promise<PruneResult> {
  const rows = options.rowsPerStatement ?? ROWS_PER_STATEMENT;
  const pause = options.pause ?? nextTurn;
  const minuteCutoffMs = floorTo(now.getTime() - policy.minuteDays * DAY_MS, HOUR_MS);
  const hourCutoffMs = floorTo(now.getTime() - policy.hourDays * DAY_MS, HOUR_MS);
  const result: PruneResult = { minutes: 0, hours: 0, hoursRolledUp: 0 };

  while (!options.signal?.aborted) {
    const oldest = await db().gpuMinute.findFirst({ where: { minute: { lt: new Date(minuteCutoffMs) } }, orderBy: { minute: "asc" }, select: { minute: true } });
    if (!oldest) break;
    const hourMs = floorTo(oldest.minute.getTime(), HOUR_MS);
    // GPUs per batch: an hour of each is at most 60 minutes.
    for (const gpus of chunks(await gpusWithMinutes(hourMs), Math.max(1, Math.floor(rows / MINUTES_PER_HOUR)))) {
      if (options.signal?.aborted) break;
      // Above Prisma's 5 s default, a precaution: a batch held up by a slow disk commits rather than being redone.
      const batch = await db().$transaction(async (tx) => {
        // Before the first read: a flush writing the same hours waits (rollup-store.ts).
        await claimWriteLock(tx);
        const rolledUp = await rollUpStaleHours(tx, hourMs, gpus);
        const deleted = await tx.$executeRaw`DELETE FROM "GpuMinute"
          WHERE "minute" >= ${new Date(hourMs)} AND "minute" < ${new Date(hourMs + HOUR_MS)} AND "gpuUuid" IN (${Prisma.join(gpus)})`;
        return { rolledUp, deleted };
      }, { timeout: 60_000 });
      result.hoursRolledUp += batch.rolledUp;
      result.minutes += batch.deleted;
      await pause();
    }
  }

  while (!options.signal?.aborted) {
    const deleted = await db().$executeRaw`DELETE FROM "GpuHour" WHERE ("gpuUuid", "hour") IN (
      SELECT "gpuUuid", "hour" FROM "GpuHour" WHERE "hour" < ${new Date(hourCutoffMs)} ORDER BY "hour" LIMIT ${Prisma.raw(String(rows))})`;
    result.hours += deleted;
    if (deleted < rows) break;
    await pause();
  }
  return result;
}

/** The GPUs that have minutes stored in this hour. */
async function gpusWithMinutes(hourMs: number): Promise<string[]> {
  const found = await db().$queryRaw<{ gpu: string }[]>`
    SELECT DISTINCT "gpuUuid" AS gpu FROM "GpuMinute" WHERE "minute" >= ${new Date(hourMs)} AND "minute" < ${new Date(hourMs + HOUR_MS)}`;
  return found.map((row) => row.gpu).sort();
}

/** Relative difference beyond rounding: SQL's AVG and the tally's mean add in other orders. */
const differs = (a: number | null, b: number | null) => (a === null || b === null ? a !== b : Math.abs(a - b) > 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)));

/**
 * Computes again, from its minutes, each hour row of these GPUs that does
 * not say what its stored minutes say (see `pruneHistory`); returns how many.
 */
async function rollUpStaleHours(tx: Client, hourMs: number, gpus: string[]): Promise<number> {
  const from = new Date(hourMs);
  const to = new Date(hourMs + HOUR_MS);
  const standings = await tx.$queryRaw<{ gpu: string; minutes: unknown; busy: unknown; util: unknown; hourMinutes: unknown; hourBusy: unknown; hourUtil: unknown }[]>`
    SELECT m."gpuUuid" AS gpu, COUNT(*) AS minutes, SUM(CASE WHEN m."busy" THEN 1 ELSE 0 END) AS busy, AVG(m."utilAvg") AS util,
      MAX(h."samples") AS "hourMinutes", MAX(h."busyMinutes") AS "hourBusy", MAX(h."utilAvg") AS "hourUtil"
    FROM "GpuMinute" m
    LEFT JOIN "GpuHour" h ON h."gpuUuid" = m."gpuUuid" AND h."hour" >= ${from} AND h."hour" < ${to}
    WHERE m."minute" >= ${from} AND m."minute" < ${to} AND m."gpuUuid" IN (${Prisma.join(gpus)})
    GROUP BY m."gpuUuid"`;
  const stale = standings
    .filter((row) => {
      const hourMinutes = numOrNull(row.hourMinutes);
      if (hourMinutes === null || num(row.minutes) > hourMinutes) return true;
      if (num(row.minutes) < hourMinutes) return false;
      return num(row.busy) !== num(row.hourBusy) || differs(numOrNull(row.util), numOrNull(row.hourUtil));
    })
    .map((row) => row.gpu);
  return stale.length === 0 ? 0 : recomputeHours(tx, [hourMs], stale);
}
