import { Prisma } from "@prisma/client";
import { chunks } from "@/lib/chunks";
import { db } from "@/server/core/db";
import { pruneDaySums } from "@/server/history/day-tier";
import { claimWriteLock, recomputeHours } from "@/server/history/rollup-store";
import { DAY_MS, HOUR_MS, floorTo } from "@/server/minutes/minute-row";
import { gpusWithMinutes, hourSpan, oldestHourBefore, pruneMinuteBlocks, readBlocks, setAsideBlocks, type Client } from "@/server/minutes/minute-store";
import type { UnreadableBlock } from "@/server/minutes/unreadable-blocks";

const MINUTES_PER_HOUR = 60;

/**
 * Most rows one statement of the pruning reads or writes, in minutes (a
 * GPU-hour's block counts its 60) or hour rows: eight GPU-hours a batch.
 * With SQLite a statement holds the event loop while it runs (docs/benchmark.md).
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
  /** Minute blocks deleted: GPU-hours of minutes. */
  minuteBlocks: number;
  /** Hour rows deleted. */
  hours: number;
  /** Hour rows written from their minutes before these were deleted (missing or stale ones). */
  hoursRolledUp: number;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Deletes rollups older than the policy allows, in small batches.
 *
 * Minutes go by whole blocks (a GPU-hour each), and only once their hour
 * is complete in GpuHour: an hour row that is missing, or that counts fewer minutes than
 * are stored (minutes written without their hour: an older version, a
 * backfill) or other busy minutes or another mean utilization, is first
 * computed again from its minutes, in the transaction that deletes them.
 * So every report of an older range reads from the hours what the minutes
 * said. An hour row that counts more minutes than are left is kept as it
 * is: its minutes were pruned in part before (by a version that cut at the
 * minute), and it is the fuller record.
 *
 * Nothing is kept between runs: each one starts from the oldest stored
 * block, so a run stopped halfway (a restart, a new leader) is finished
 * by the next. Hours go once their start is older than the cutoff, and
 * the day tier's sums of every day that starts before it with them.
 */
export async function pruneHistory(now: Date, policy: RetentionPolicy, options: PruneOptions = {}): Promise<PruneResult> {
  const rows = options.rowsPerStatement ?? ROWS_PER_STATEMENT;
  const pause = options.pause ?? nextTurn;
  const minuteCutoffMs = floorTo(now.getTime() - policy.minuteDays * DAY_MS, HOUR_MS);
  const hourCutoffMs = floorTo(now.getTime() - policy.hourDays * DAY_MS, HOUR_MS);
  const result: PruneResult = { minuteBlocks: 0, hours: 0, hoursRolledUp: 0 };

  while (!options.signal?.aborted) {
    const hourMs = await oldestHourBefore(db(), minuteCutoffMs);
    if (hourMs === null) break;
    // GPUs per batch: an hour of each is at most 60 minutes.
    for (const gpus of chunks(await gpusWithMinutes(db(), hourMs), Math.max(1, Math.floor(rows / MINUTES_PER_HOUR)))) {
      if (options.signal?.aborted) break;
      // Above Prisma's 5 s default, a precaution: a batch held up by a slow disk commits rather than being redone.
      const batch = await db().$transaction(async (tx) => {
        // Before the first read: a flush writing the same hours waits (rollup-store.ts).
        await claimWriteLock(tx);
        const rolledUp = await rollUpStaleHours(tx, hourMs, gpus);
        const deleted = await pruneMinuteBlocks(tx, hourMs, gpus);
        return { rolledUp, deleted };
      }, { timeout: 60_000 });
      result.hoursRolledUp += batch.rolledUp;
      result.minuteBlocks += batch.deleted;
      await pause();
    }
  }

  // Before the hours: a day's sums go with its first hour (server/history/day-tier.ts).
  if (!options.signal?.aborted) await pruneDaySums(db(), hourCutoffMs);
  while (!options.signal?.aborted) {
    const deleted = await db().$executeRaw`DELETE FROM "GpuHour" WHERE ("gpuUuid", "hour") IN (
      SELECT "gpuUuid", "hour" FROM "GpuHour" WHERE "hour" < ${new Date(hourCutoffMs)} ORDER BY "hour" LIMIT ${Prisma.raw(String(rows))})`;
    result.hours += deleted;
    if (deleted < rows) break;
    await pause();
  }
  return result;
}

/**
 * Relative difference beyond rounding: to Float32's precision, as minutes
 * keep their measures (minute-block.ts) while an hour made before they did
 * was made of doubles.
 */
const differs = (a: number | null, b: number | null) => (a === null || b === null ? a !== b : Math.abs(a - b) > 1e-6 * Math.max(1, Math.abs(a), Math.abs(b)));

/**
 * Computes again, from its minutes, each hour row of these GPUs that does
 * not say what its stored minutes say (see `pruneHistory`); returns how many.
 * A block that cannot be read is set aside (unreadable-blocks.ts) instead of
 * stopping the pass: its hour row stays as it was written.
 */
async function rollUpStaleHours(tx: Client, hourMs: number, gpus: string[]): Promise<number> {
  const unreadable: UnreadableBlock[] = [];
  const minutes = await readBlocks(tx, [hourSpan(hourMs, gpus)], unreadable);
  // A block that cannot be read leaves its hour row as it is and is kept for an admin; the others go on.
  await setAsideBlocks(tx, unreadable);
  const hours = new Map((await tx.gpuHour.findMany({ where: { hour: new Date(hourMs), gpuUuid: { in: gpus } }, select: { gpuUuid: true, samples: true, busyMinutes: true, utilAvg: true } })).map((row) => [row.gpuUuid, row]));
  const stale = [...minutes]
    .filter(([uuid, rows]) => {
      const hour = hours.get(uuid);
      if (!hour || rows.length > hour.samples) return true;
      if (rows.length < hour.samples) return false;
      const utils = rows.flatMap((row) => (row.utilAvg === null ? [] : [row.utilAvg]));
      const util = utils.length === 0 ? null : utils.reduce((sum, value) => sum + value, 0) / utils.length;
      return rows.filter((row) => row.busy).length !== hour.busyMinutes || differs(util, hour.utilAvg);
    })
    .map(([uuid]) => uuid);
  return stale.length === 0 ? 0 : recomputeHours(tx, [hourMs], stale);
}
