import type { Snapshot } from "@/lib/snapshot";
import { db } from "@/server/db";
import { findBookedIntervals, holderOfMinute, intervalsByGpu } from "@/server/history/booked-holders";
import {
  HOUR_MS,
  MINUTE_MS,
  addSample,
  floorTo,
  mergeEntries,
  newMinuteEntry,
  toMinuteRow,
  type MinuteEntry,
} from "@/server/history/rollup-math";
import { claimWriteLock, recomputeHours, upsertMinuteRows } from "@/server/history/rollup-store";

/** Minutes kept in memory while the database refuses writes; beyond this the oldest are dropped (and counted). */
const MAX_PENDING = 200_000;

export interface FlushResult {
  minutes: number;
  hours: number;
}

export interface RollupStats {
  pending: number;
  flushes: number;
  failedFlushes: number;
  droppedMinutes: number;
  lastFlushAt: number | null;
  lastFlushMs: number | null;
}

/**
 * Per-GPU minute rollups, accumulated in memory from every accepted
 * snapshot (live or replayed) and written in batches: a few transactions
 * per flush (one per part of the GPUs), never a write per sample. A minute that spans two flushes is
 * merged in the database (see `upsertMinuteRows`); the hours touched by a
 * flush are recomputed from their minutes in the same transaction, so the
 * hourly table is never behind the minutes by more than one flush. Minutes
 * without readings are never written: a host that was offline leaves a gap.
 */
export class MinuteRollups {
  private pending = new Map<string, MinuteEntry>();
  private running: Promise<FlushResult> = Promise.resolve({ minutes: 0, hours: 0 });
  private readonly stats: RollupStats = { pending: 0, flushes: 0, failedFlushes: 0, droppedMinutes: 0, lastFlushAt: null, lastFlushMs: null };

  constructor(private readonly now: () => number = Date.now) {}

  /** Adds one accepted snapshot of a host. Cheap: no I/O. */
  record(host: { id: string; simulated: boolean }, snapshot: Snapshot): void {
    const minuteMs = floorTo(Date.parse(snapshot.sampledAt), MINUTE_MS);
    if (!Number.isFinite(minuteMs)) return;
    const busy = new Set(snapshot.processes.map((process) => process.gpuUuid));
    for (const sample of snapshot.gpus) {
      const key = `${sample.uuid}\u0000${minuteMs}`;
      let entry = this.pending.get(key);
      if (!entry) {
        entry = newMinuteEntry(sample.uuid, minuteMs, host.id, host.simulated);
        this.pending.set(key, entry);
      }
      entry.hostId = host.id;
      addSample(entry, sample, busy.has(sample.uuid));
    }
  }

  get pendingMinutes(): number {
    return this.pending.size;
  }

  snapshotStats(): RollupStats {
    return { ...this.stats, pending: this.pending.size };
  }

  /** Writes everything accumulated so far; flushes run one after another, never two at once. */
  flush(): Promise<FlushResult> {
    this.running = this.running.catch(() => ({ minutes: 0, hours: 0 })).then(() => this.flushOnce());
    return this.running;
  }

  /**
   * One transaction per part of GPUS_PER_FLUSH_PART GPUs, with a turn of the
   * event loop between parts: with SQLite a transaction holds the main
   * thread, and one for the whole fleet stalled it for ~300 ms every flush
   * at 1,000 GPUs (deltas to browsers waited behind it). A part holds every
   * pending minute of its GPUs and recomputes their hours from the minutes
   * in the same transaction, so the guarantees hold per GPU. A part that
   * fails goes back with the parts after it, never one already written:
   * minutes merge by adding samples, and writing one twice would count it
   * twice.
   */
  private async flushOnce(): Promise<FlushResult> {
    if (this.pending.size === 0) return { minutes: 0, hours: 0 };
    const batch = this.pending;
    this.pending = new Map();
    const startedAt = this.now();
    const parts = partsByGpu(batch);
    const total: FlushResult = { minutes: 0, hours: 0 };
    for (let i = 0; i < parts.length; i += 1) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      try {
        const result = await writeBatch([...parts[i].values()]);
        total.minutes += result.minutes;
        total.hours += result.hours;
      } catch (error) {
        this.stats.failedFlushes += 1;
        this.putBack(new Map(parts.slice(i).flatMap((part) => [...part])));
        throw error;
      }
    }
    this.stats.flushes += 1;
    this.stats.lastFlushAt = this.now();
    this.stats.lastFlushMs = this.now() - startedAt;
    return total;
  }

  /** A failed batch goes back in front of what arrived meanwhile, to be written by the next flush. */
  private putBack(batch: Map<string, MinuteEntry>): void {
    for (const [key, entry] of this.pending) {
      const earlier = batch.get(key);
      if (earlier) mergeEntries(earlier, entry);
      else batch.set(key, entry);
    }
    this.pending = batch;
    if (this.pending.size > MAX_PENDING) {
      const oldestFirst = [...this.pending.entries()].sort((a, b) => a[1].minuteMs - b[1].minuteMs);
      const excess = oldestFirst.slice(0, this.pending.size - MAX_PENDING);
      for (const [key] of excess) this.pending.delete(key);
      this.stats.droppedMinutes += excess.length;
    }
  }
}

/**
 * GPU lists become `IN (…)` lists of bound parameters, and SQLite takes at
 * most 999 per statement: a fleet of 1,000 GPUs would fail every flush.
 */
const GPUS_PER_QUERY = 500;

/** GPUs per transaction of a flush: small enough that one stalls the event loop for tens of milliseconds, not hundreds. */
const GPUS_PER_FLUSH_PART = 100;

/** The pending minutes split by GPU, GPUS_PER_FLUSH_PART GPUs a part, each GPU's minutes all in one part. */
function partsByGpu(batch: Map<string, MinuteEntry>): Map<string, MinuteEntry>[] {
  const partOfGpu = new Map<string, Map<string, MinuteEntry>>();
  const parts: Map<string, MinuteEntry>[] = [];
  for (const [key, entry] of batch) {
    let part = partOfGpu.get(entry.gpuUuid);
    if (!part) {
      if (parts.length === 0 || partOfGpu.size % GPUS_PER_FLUSH_PART === 0) parts.push(new Map());
      part = parts[parts.length - 1];
      partOfGpu.set(entry.gpuUuid, part);
    }
    part.set(key, entry);
  }
  return parts;
}

function gpuChunks(uuids: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < uuids.length; i += GPUS_PER_QUERY) out.push(uuids.slice(i, i + GPUS_PER_QUERY));
  return out;
}

async function writeBatch(entries: MinuteEntry[]): Promise<FlushResult> {
  let fromMs = Infinity;
  let toMs = -Infinity;
  const uuids = new Set<string>();
  const dirtyHours = new Map<number, Set<string>>();
  for (const entry of entries) {
    fromMs = Math.min(fromMs, entry.minuteMs);
    toMs = Math.max(toMs, entry.minuteMs + MINUTE_MS);
    uuids.add(entry.gpuUuid);
    const hourMs = floorTo(entry.minuteMs, HOUR_MS);
    const hour = dirtyHours.get(hourMs);
    if (hour) hour.add(entry.gpuUuid);
    else dirtyHours.set(hourMs, new Set([entry.gpuUuid]));
  }
  return db().$transaction(
    async (tx) => {
      await claimWriteLock(tx);
      const booked = [];
      for (const part of gpuChunks([...uuids])) booked.push(...(await findBookedIntervals(tx, part, new Date(fromMs), new Date(toMs))));
      const intervals = intervalsByGpu(booked);
      const rows = entries.map((entry) => toMinuteRow(entry, holderOfMinute(intervals.get(entry.gpuUuid) ?? [], entry.minuteMs)));
      await upsertMinuteRows(tx, rows);
      let hours = 0;
      for (const [hourMs, gpus] of dirtyHours) {
        for (const part of gpuChunks([...gpus])) hours += await recomputeHours(tx, [hourMs], part);
      }
      return { minutes: rows.length, hours };
    },
    { maxWait: 30_000, timeout: 120_000 },
  );
}
