import { chunks } from "@/lib/chunks";
import type { Snapshot } from "@/lib/domain/snapshot";
import { db } from "@/server/core/db";
import { findBookedIntervals, bookedByOfMinute, intervalsByGpu, type BookedInterval } from "@/server/history/booked-intervals";
import { extendTally, hourRowOf, tallyMinutes, tallyTotals, type HourTally } from "@/server/history/hour-tally";
import { addSample, mergeEntries, newMinuteEntry, toMinuteRow, type MinuteEntry } from "@/server/history/rollup-math";
import { HOUR_MS, MINUTE_MS, floorTo, type MinuteRow } from "@/server/minutes/minute-row";
import { claimWriteLock, countHourMinutes, upsertHourRows, upsertMinuteRows } from "@/server/history/rollup-store";
import { byHourAndGpu, readMinutes, type Client } from "@/server/minutes/minute-store";

/** Minutes kept in memory while the database refuses writes; beyond this the oldest are dropped (and counted). */
const MAX_PENDING = 200_000;

export interface FlushResult {
  minutes: number;
  hours: number;
}

interface BatchResult extends FlushResult {
  /** The GPU-hours the batch wrote, as they now stand. */
  tallies: HourTally[];
  /** Of those, how many were recounted from all their stored minutes. */
  recounted: number;
}

export interface RollupStats {
  pending: number;
  flushes: number;
  failedFlushes: number;
  droppedMinutes: number;
  /** GPU-hours brought up to date from all their stored minutes rather than from their tally (first write since start, another writer, a late minute). */
  recountedHours: number;
  lastFlushAt: number | null;
  lastFlushMs: number | null;
}

/**
 * Per-GPU minute rollups, accumulated in memory from every accepted
 * snapshot (live or replayed) and written in batches: a few transactions
 * per flush (one per part of the GPUs), never a write per sample. A minute that spans two flushes is
 * merged with its stored part (see `upsertMinuteRows`); the hours touched by a
 * flush are brought up to date in the same transaction, so the hourly table
 * is never behind the minutes by more than one flush: from the minutes just
 * written and a tally of the hour kept in memory (hour-tally.ts), or, where
 * the tally cannot vouch for the hour, from all its stored minutes. Minutes
 * without readings are never written: a host that was offline leaves a gap.
 */
export class MinuteRollups {
  private pending = new Map<string, MinuteEntry>();
  /** Each GPU's newest entry in `pending`: most readings fall in the minute of the one before, found without building the minute's key. */
  private latest = new Map<string, MinuteEntry>();
  /** The GPU-hours this process wrote lately, by GPU and hour: a flush extends them instead of reading the hours' minutes back. */
  private tallies = new Map<string, HourTally>();
  private running: Promise<FlushResult> = Promise.resolve({ minutes: 0, hours: 0 });
  private readonly stats: RollupStats = { pending: 0, flushes: 0, failedFlushes: 0, droppedMinutes: 0, recountedHours: 0, lastFlushAt: null, lastFlushMs: null };

  constructor(private readonly now: () => number = Date.now) {}

  /** Adds one accepted snapshot of a host. Cheap: no I/O. */
  record(host: { id: string; simulated: boolean }, snapshot: Snapshot): void {
    const minuteMs = floorTo(Date.parse(snapshot.sampledAt), MINUTE_MS);
    if (!Number.isFinite(minuteMs)) return;
    const { processes } = snapshot;
    for (const sample of snapshot.gpus) {
      let entry = this.latest.get(sample.uuid);
      if (entry?.minuteMs !== minuteMs) {
        const key = `${sample.uuid}\u0000${minuteMs}`;
        entry = this.pending.get(key);
        if (!entry) {
          entry = newMinuteEntry(sample.uuid, minuteMs, host.id, host.simulated);
          this.pending.set(key, entry);
        }
        // A replayed reading of an earlier minute leaves the newest one in place.
        const newest = this.latest.get(sample.uuid);
        if (!newest || newest.minuteMs < minuteMs) this.latest.set(sample.uuid, entry);
      }
      entry.hostId = host.id;
      // Most hosts report no process: no scan, no set per reading.
      addSample(entry, sample, processes.length > 0 && processes.some((process) => process.gpuUuid === sample.uuid));
    }
  }

  /**
   * Takes in one tick's word on who booked each GPU and who runs there
   * (the tick's view, server/tick/): it joins the minute of the GPU's
   * latest reading recorded here. GPUs this instance records no readings
   * of (other instances' agents, hosts gone quiet) are left alone.
   */
  witness(uuid: string, bookedBy: string | null, runner: string | null, nowMs: number): void {
    const entry = this.latest.get(uuid);
    // A reading older than the minute before is not what this tick judged.
    if (!entry || nowMs - entry.minuteMs >= 2 * MINUTE_MS) return;
    entry.seen ??= { bookedBy: new Map(), runners: new Map() };
    if (bookedBy !== null) entry.seen.bookedBy.set(bookedBy, (entry.seen.bookedBy.get(bookedBy) ?? 0) + 1);
    if (runner !== null) entry.seen.runners.set(runner, (entry.seen.runners.get(runner) ?? 0) + 1);
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
   * pending minute of its GPUs and brings their hours up to date in the
   * same transaction, so the guarantees hold per GPU. A part that
   * fails goes back with the parts after it, never one already written:
   * minutes merge by adding samples, and writing one twice would count it
   * twice.
   */
  private async flushOnce(): Promise<FlushResult> {
    if (this.pending.size === 0) return { minutes: 0, hours: 0 };
    const batch = this.pending;
    this.pending = new Map();
    this.latest.clear();
    const startedAt = this.now();
    const parts = partsByGpu(batch);
    const total: FlushResult = { minutes: 0, hours: 0 };
    let intervals: Map<string, BookedInterval[]> | null = null;
    for (let i = 0; i < parts.length; i += 1) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      try {
        intervals ??= await bookedDuring(batch.values());
        const result = await writeBatch([...parts[i].values()], intervals, this.tallies);
        for (const tally of result.tallies) this.tallies.set(tallyKey(tally.gpuUuid, tally.hourMs), tally);
        this.stats.recountedHours += result.recounted;
        total.minutes += result.minutes;
        total.hours += result.hours;
      } catch (error) {
        this.stats.failedFlushes += 1;
        this.putBack(new Map(parts.slice(i).flatMap((part) => [...part])));
        throw error;
      }
    }
    this.forgetOldTallies();
    this.stats.flushes += 1;
    this.stats.lastFlushAt = this.now();
    this.stats.lastFlushMs = this.now() - startedAt;
    return total;
  }

  /**
   * Keeps the tallies of the latest two hours written: older hours only get
   * minutes from readings replayed late, and a recount serves those.
   */
  private forgetOldTallies(): void {
    let newestHourMs = -Infinity;
    for (const tally of this.tallies.values()) newestHourMs = Math.max(newestHourMs, tally.hourMs);
    for (const [key, tally] of this.tallies) if (tally.hourMs < newestHourMs - HOUR_MS) this.tallies.delete(key);
  }

  /** A failed batch goes back in front of what arrived meanwhile, to be written by the next flush. */
  private putBack(batch: Map<string, MinuteEntry>): void {
    for (const [key, entry] of this.pending) {
      const earlier = batch.get(key);
      if (earlier) mergeEntries(earlier, entry);
      else batch.set(key, entry);
    }
    this.pending = batch;
    this.latest.clear();
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

const tallyKey = (gpuUuid: string, hourMs: number) => `${gpuUuid}\u0000${hourMs}`;

/**
 * The tallies of these GPU-hours that still match the database: no minute of
 * the hour was written by anyone else since this process last wrote one.
 * Asked before this write adds its own samples.
 */
async function stillCurrent(tx: Client, hours: Map<number, Map<string, MinuteRow[]>>, tallies: ReadonlyMap<string, HourTally>): Promise<Map<string, HourTally>> {
  const current = new Map<string, HourTally>();
  for (const [hourMs, gpus] of hours) {
    const known = [...gpus.keys()].filter((uuid) => tallies.has(tallyKey(uuid, hourMs)));
    for (const part of chunks(known, GPUS_PER_QUERY)) {
      const stored = await countHourMinutes(tx, hourMs, part);
      for (const uuid of part) {
        const tally = tallies.get(tallyKey(uuid, hourMs))!;
        const expected = tallyTotals(tally);
        const found = stored.get(uuid);
        if (found?.minutes === expected.minutes && found.samples === expected.samples) current.set(tallyKey(uuid, hourMs), tally);
      }
    }
  }
  return current;
}

/**
 * Who booked which GPU over the batch's minutes that no tick saw
 * (readings an agent replayed after an outage; the ticks' word counts for
 * the others): one query for the whole flush (all bookings in that span, of
 * any GPU: fewer than the GPUs), none when every minute was seen, not one
 * per part; read before the parts' transactions, as a booking made during
 * the flush could come before or after it either way.
 */
async function bookedDuring(entries: Iterable<MinuteEntry>): Promise<Map<string, BookedInterval[]>> {
  let fromMs = Infinity;
  let toMs = -Infinity;
  for (const entry of entries) {
    // The ticks said who booked the minutes they saw: only the others need the record.
    if (entry.seen) continue;
    fromMs = Math.min(fromMs, entry.minuteMs);
    toMs = Math.max(toMs, entry.minuteMs + MINUTE_MS);
  }
  if (fromMs === Infinity) return new Map();
  return intervalsByGpu(await findBookedIntervals(db(), new Date(fromMs), new Date(toMs)));
}

/**
 * Writes one part's minutes and brings their hours up to date. An hour whose
 * tally still matches the database is extended with the minutes just written
 * (the one minute that was already stored read back as merged);
 * any other (first seen since start, written by another instance meanwhile, a
 * minute that arrived after a later one) is recounted from its stored minutes.
 */
async function writeBatch(entries: MinuteEntry[], intervals: ReadonlyMap<string, BookedInterval[]>, tallies: ReadonlyMap<string, HourTally>): Promise<BatchResult> {
  return db().$transaction(
    async (tx) => {
      await claimWriteLock(tx);
      const rows = entries.map((entry) => toMinuteRow(entry, bookedByOfMinute(intervals.get(entry.gpuUuid) ?? [], entry.minuteMs)));
      const hours = byHourAndGpu(rows);
      const current = await stillCurrent(tx, hours, tallies);
      // The minutes as stored (merged with a first part an earlier flush wrote, measures as Float32): an hour is made of the stored numbers.
      const stored = new Map((await upsertMinuteRows(tx, rows)).map((row) => [tallyKey(row.gpuUuid, row.minute.getTime()), row]));
      const updated: HourTally[] = [];
      let recounted = 0;
      for (const [hourMs, gpus] of hours) {
        const recount: string[] = [];
        for (const [uuid, minutes] of gpus) {
          const tally = current.get(tallyKey(uuid, hourMs));
          const next = tally ? extendTally(tally, minutes.map((row) => stored.get(tallyKey(uuid, row.minute.getTime())) ?? row)) : null;
          if (next) updated.push(next);
          else recount.push(uuid);
        }
        for (const part of chunks(recount, GPUS_PER_QUERY)) {
          const hour = byHourAndGpu(await readMinutes(tx, hourMs, hourMs + HOUR_MS, part)).get(hourMs);
          for (const minutes of hour?.values() ?? []) updated.push(tallyMinutes(minutes, hourMs));
          recounted += hour?.size ?? 0;
        }
      }
      await upsertHourRows(tx, updated.map(hourRowOf));
      return { minutes: rows.length, hours: updated.length, tallies: updated, recounted };
    },
    { maxWait: 30_000, timeout: 120_000 },
  );
}
