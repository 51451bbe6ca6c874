import type { GpuSample } from "@/lib/domain/snapshot";
import type { MinuteRow } from "@/server/minutes/minute-row";

/**
 * The arithmetic of the usage rollups, free of any database: how samples
 * become a minute, how two halves of one minute become one, and how minutes
 * become an hour. rollup-store.ts merges a stored minute with
 * `mergeMinuteRows`. Minutes become an hour in hour-tally.ts (`rollupHour`).
 */

/**
 * One GPU for one hour, as stored in GpuHour. Here `samples` counts the
 * minutes that had readings (not raw readings): GPU-hour sums need the
 * time covered, and averages are means over minutes, so that a sum over
 * hours equals the same sum over their minutes.
 */
export interface HourRow {
  gpuUuid: string;
  hour: Date;
  hostId: string;
  samples: number;
  utilAvg: number | null;
  utilMax: number | null;
  memUsedAvg: number | null;
  memUsedMax: number | null;
  memTotal: number | null;
  powerAvg: number | null;
  tempAvg: number | null;
  tempMax: number | null;
  /** Who booked it for most of the hour's minutes. */
  bookedByUserId: string | null;
  /** Who ran there for most of the hour's minutes. */
  runnerUserId?: string | null;
  busyMinutes: number;
  simulated: boolean;
}

/** A running sum of one metric; values the GPU does not report (null) are not counted. */
export interface Stat {
  sum: number;
  count: number;
  max: number | null;
}

/** A minute being accumulated in memory, before it is written. */
export interface MinuteEntry {
  gpuUuid: string;
  minuteMs: number;
  hostId: string;
  samples: number;
  util: Stat;
  mem: Stat;
  power: Stat;
  temp: Stat;
  memTotal: number | null;
  busy: boolean;
  simulated: boolean;
  /**
   * What the ticks that fell in this minute saw (server/history/rollups-consumer.ts):
   * ticks per booker and per runner. Absent when no tick
   * saw the minute (readings an agent replayed after an outage).
   */
  seen?: MinuteWitness;
}

/** Ticks per person, for the two people of a GPU-minute. */
export interface MinuteWitness {
  bookedBy: Map<string, number>;
  runners: Map<string, number>;
}

function emptyStat(): Stat {
  return { sum: 0, count: 0, max: null };
}

function addValue(stat: Stat, value: number | null): void {
  if (value === null || !Number.isFinite(value)) return;
  stat.sum += value;
  stat.count += 1;
  stat.max = stat.max === null ? value : Math.max(stat.max, value);
}

function mergeStat(into: Stat, from: Stat): void {
  into.sum += from.sum;
  into.count += from.count;
  if (from.max !== null) into.max = into.max === null ? from.max : Math.max(into.max, from.max);
}

function mean(stat: Stat): number | null {
  return stat.count === 0 ? null : stat.sum / stat.count;
}

export function newMinuteEntry(gpuUuid: string, minuteMs: number, hostId: string, simulated: boolean): MinuteEntry {
  return {
    gpuUuid,
    minuteMs,
    hostId,
    samples: 0,
    util: emptyStat(),
    mem: emptyStat(),
    power: emptyStat(),
    temp: emptyStat(),
    memTotal: null,
    busy: false,
    simulated,
  };
}

/** Adds one reading of one GPU; `busy` is whether any process ran on it at that instant. */
export function addSample(entry: MinuteEntry, sample: GpuSample, busy: boolean): void {
  entry.samples += 1;
  addValue(entry.util, sample.utilizationGpuPct);
  addValue(entry.mem, sample.memoryUsedMiB);
  addValue(entry.power, sample.powerDrawW);
  addValue(entry.temp, sample.temperatureC);
  if (sample.memoryTotalMiB !== null) entry.memTotal = sample.memoryTotalMiB;
  entry.busy ||= busy;
}

/** Folds a second accumulation of the same GPU-minute into the first (a failed write put back). */
export function mergeEntries(into: MinuteEntry, from: MinuteEntry): void {
  into.samples += from.samples;
  mergeStat(into.util, from.util);
  mergeStat(into.mem, from.mem);
  mergeStat(into.power, from.power);
  mergeStat(into.temp, from.temp);
  into.memTotal = from.memTotal ?? into.memTotal;
  into.hostId = from.hostId;
  into.busy ||= from.busy;
  into.simulated &&= from.simulated;
  if (from.seen) {
    into.seen ??= { bookedBy: new Map(), runners: new Map() };
    for (const [id, ticks] of from.seen.bookedBy) into.seen.bookedBy.set(id, (into.seen.bookedBy.get(id) ?? 0) + ticks);
    for (const [id, ticks] of from.seen.runners) into.seen.runners.set(id, (into.seen.runners.get(id) ?? 0) + ticks);
  }
}

/** The person seen in most ticks; null when no tick saw one. */
export function mostTicks(ticks: ReadonlyMap<string, number> | undefined): string | null {
  let best: string | null = null;
  let bestCount = 0;
  for (const [id, count] of ticks ?? []) {
    if (count > bestCount) {
      best = id;
      bestCount = count;
    }
  }
  return best;
}

/**
 * The minute's row. Who booked it and who ran are what the ticks saw
 * (`entry.seen`); a minute no tick saw takes `bookedFromRecord`, from the
 * bookings on record, and no runner.
 */
export function toMinuteRow(entry: MinuteEntry, bookedFromRecord: string | null): MinuteRow {
  return {
    gpuUuid: entry.gpuUuid,
    minute: new Date(entry.minuteMs),
    hostId: entry.hostId,
    samples: entry.samples,
    utilAvg: mean(entry.util),
    utilMax: entry.util.max,
    memUsedAvg: mean(entry.mem),
    memUsedMax: entry.mem.max,
    memTotal: entry.memTotal,
    powerAvg: mean(entry.power),
    tempAvg: mean(entry.temp),
    tempMax: entry.temp.max,
    bookedByUserId: entry.seen ? mostTicks(entry.seen.bookedBy) : bookedFromRecord,
    runnerUserId: entry.seen ? mostTicks(entry.seen.runners) : null,
    busy: entry.busy,
    simulated: entry.simulated,
  };
}

/**
 * Averages weighted by sample counts. A metric missing on one side takes
 * the other side's value. (The weight is the minute's sample count, not the
 * count of non-null values, which the table does not keep; a GPU reports a
 * metric always or never, so the two agree in practice.)
 */
function weighted(a: number | null, aWeight: number, b: number | null, bWeight: number): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return (a * aWeight + b * bWeight) / (aWeight + bWeight);
}

function larger(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}

/**
 * A minute written twice (the first write held only part of it): the row
 * that results, as `upsertMinuteRows` stores it.
 */
export function mergeMinuteRows(stored: MinuteRow, incoming: MinuteRow): MinuteRow {
  const a = stored.samples;
  const b = incoming.samples;
  return {
    gpuUuid: stored.gpuUuid,
    minute: stored.minute,
    hostId: incoming.hostId,
    samples: a + b,
    utilAvg: weighted(stored.utilAvg, a, incoming.utilAvg, b),
    utilMax: larger(stored.utilMax, incoming.utilMax),
    memUsedAvg: weighted(stored.memUsedAvg, a, incoming.memUsedAvg, b),
    memUsedMax: larger(stored.memUsedMax, incoming.memUsedMax),
    memTotal: incoming.memTotal ?? stored.memTotal,
    powerAvg: weighted(stored.powerAvg, a, incoming.powerAvg, b),
    tempAvg: weighted(stored.tempAvg, a, incoming.tempAvg, b),
    tempMax: larger(stored.tempMax, incoming.tempMax),
    bookedByUserId: incoming.bookedByUserId ?? stored.bookedByUserId,
    runnerUserId: incoming.runnerUserId ?? stored.runnerUserId ?? null,
    busy: stored.busy || incoming.busy,
    simulated: stored.simulated && incoming.simulated,
  };
}
