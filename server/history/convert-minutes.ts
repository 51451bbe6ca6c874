import { chunks } from "@/lib/chunks";
import { db } from "@/server/core/db";
import { HOUR_MS, floorTo, type MinuteRow } from "@/server/minutes/minute-row";
import { claimWriteLock, countHourMinutes, recomputeHours, upsertMinuteRows } from "@/server/history/rollup-store";

/** GPU-hours a transaction: 480 old rows read and deleted, eight blocks written. */
const GPU_HOURS_PER_BATCH = 8;

export interface ConvertOptions {
  gpuHoursPerBatch?: number;
  /** Awaited between two batches (default: one turn of the event loop). */
  pause?: () => Promise<void>;
  /** Stops after the batch in progress; the next run goes on from what is left. */
  signal?: AbortSignal;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Moves the minutes an older gpudesk kept one row each (LegacyGpuMinute,
 * the table "GpuMinute") into minute blocks, oldest hour first, a few whole
 * GPU-hours a transaction that writes their blocks and deletes their rows:
 * a run stopped halfway (a restart, a new leader) loses and doubles
 * nothing, and the next run goes on from what is left. A GPU-hour that had
 * a block already (minutes written since the upgrade) gets the old minutes
 * merged in, and its hour row recomputed; the others' hour rows were made
 * from these same minutes and stay as they are. The leader runs it as the
 * first pass of the history retention job; once the table is empty it
 * costs one query, and a later migration drops the table.
 */
export async function convertLegacyMinutes(options: ConvertOptions = {}): Promise<number> {
  const perBatch = options.gpuHoursPerBatch ?? GPU_HOURS_PER_BATCH;
  const pause = options.pause ?? nextTurn;
  let moved = 0;
  while (!options.signal?.aborted) {
    const oldest = await db().legacyGpuMinute.findFirst({ orderBy: { minute: "asc" }, select: { minute: true } });
    if (!oldest) break;
    const hourMs = floorTo(oldest.minute.getTime(), HOUR_MS);
    const inHour = { minute: { gte: new Date(hourMs), lt: new Date(hourMs + HOUR_MS) } };
    const gpus = (await db().legacyGpuMinute.findMany({ where: inHour, distinct: ["gpuUuid"], select: { gpuUuid: true }, orderBy: { gpuUuid: "asc" } })).map((row) => row.gpuUuid);
    for (const part of chunks(gpus, perBatch)) {
      if (options.signal?.aborted) break;
      moved += await db().$transaction(
        async (tx) => {
          await claimWriteLock(tx);
          const where = { ...inHour, gpuUuid: { in: part } };
          const rows: MinuteRow[] = await tx.legacyGpuMinute.findMany({ where });
          const hadBlocks = [...(await countHourMinutes(tx, hourMs, part)).keys()];
          await upsertMinuteRows(tx, rows);
          await tx.legacyGpuMinute.deleteMany({ where });
          if (hadBlocks.length > 0) await recomputeHours(tx, [hourMs], hadBlocks);
          return rows.length;
        },
        { timeout: 60_000 },
      );
      await pause();
    }
  }
  return moved;
}
