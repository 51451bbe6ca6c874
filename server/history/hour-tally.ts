import { type HourRow } from "@/server/history/rollup-math";
import { floorTo, HOUR_MS, type MinuteRow } from "@/server/minutes/minute-row";

/**
 * One GPU-hour as a running fold of its minutes, so that a flush can bring
 * an hour up to date from the minutes it writes instead of reading all the
 * hour's minutes back. Minutes are folded in minute order, the order in
 * which `rollupHour` sums them, so both give the same numbers to the last
 * bit. The latest minute is kept apart, unfolded: the next flush may bring
 * more of it (a minute written in two flushes), and then that minute is
 * replaced, not added twice.
 */
export interface HourTally {
  gpuUuid: string;
  hourMs: number;
  folded: Folded;
  last: MinuteRow;
}

interface Mean {
  sum: number;
  count: number;
}

interface Folded {
  minutes: number;
  /** Sum of the minutes' sample counts: with `minutes`, what the database must hold if nobody else wrote this hour. */
  samples: number;
  util: Mean;
  utilMax: number | null;
  mem: Mean;
  memUsedMax: number | null;
  memTotal: number | null;
  power: Mean;
  temp: Mean;
  tempMax: number | null;
  /** Minutes per bookedBy, in the order bookers first appear (ties go to the earlier one). */
  bookers: Map<string | null, number>;
  /** Minutes per runner, likewise. */
  runners: Map<string | null, number>;
  busyMinutes: number;
  simulated: boolean;
}

function emptyFolded(): Folded {
  const mean = () => ({ sum: 0, count: 0 });
  return {
    minutes: 0,
    samples: 0,
    util: mean(),
    utilMax: null,
    mem: mean(),
    memUsedMax: null,
    memTotal: null,
    power: mean(),
    temp: mean(),
    tempMax: null,
    bookers: new Map(),
    runners: new Map(),
    busyMinutes: 0,
    simulated: true,
  };
}

function copyFolded(folded: Folded): Folded {
  const mean = (m: Mean) => ({ ...m });
  return { ...folded, util: mean(folded.util), mem: mean(folded.mem), power: mean(folded.power), temp: mean(folded.temp), bookers: new Map(folded.bookers), runners: new Map(folded.runners) };
}

function addMean(mean: Mean, value: number | null): void {
  if (value === null) return;
  mean.sum += value;
  mean.count += 1;
}

function larger(max: number | null, value: number | null): number | null {
  return value !== null && (max === null || value > max) ? value : max;
}

function fold(into: Folded, minute: MinuteRow): void {
  into.minutes += 1;
  into.samples += minute.samples;
  addMean(into.util, minute.utilAvg);
  into.utilMax = larger(into.utilMax, minute.utilMax);
  addMean(into.mem, minute.memUsedAvg);
  into.memUsedMax = larger(into.memUsedMax, minute.memUsedMax);
  into.memTotal = larger(into.memTotal, minute.memTotal);
  addMean(into.power, minute.powerAvg);
  addMean(into.temp, minute.tempAvg);
  into.tempMax = larger(into.tempMax, minute.tempMax);
  into.bookers.set(minute.bookedByUserId, (into.bookers.get(minute.bookedByUserId) ?? 0) + 1);
  const runner = minute.runnerUserId ?? null;
  into.runners.set(runner, (into.runners.get(runner) ?? 0) + 1);
  if (minute.busy) into.busyMinutes += 1;
  into.simulated &&= minute.simulated;
}

/** A tally of one GPU-hour from its minutes (at least one, any order). */
export function tallyMinutes(minutes: MinuteRow[], hourMs: number): HourTally {
  if (minutes.length === 0) throw new Error("an hour needs at least one minute");
  const sorted = [...minutes].sort((a, b) => a.minute.getTime() - b.minute.getTime());
  const folded = emptyFolded();
  for (const minute of sorted.slice(0, -1)) fold(folded, minute);
  return { gpuUuid: sorted[0]!.gpuUuid, hourMs, folded, last: sorted[sorted.length - 1]! };
}

/**
 * The tally with later minutes of the same GPU-hour added (a new tally; the
 * old one is left as it was, in case the write that carries these minutes
 * fails). `minutes` are in minute order; one at the tally's latest minute
 * is that minute as now stored (both parts), and replaces it. Returns null
 * when a minute comes before the latest one (a replayed reading that
 * arrived late): only a recount from the stored minutes keeps the order.
 */
export function extendTally(tally: HourTally, minutes: MinuteRow[]): HourTally | null {
  let folded: Folded | null = null;
  let last = tally.last;
  for (const minute of minutes) {
    const at = minute.minute.getTime();
    if (at < last.minute.getTime()) return null;
    if (at > last.minute.getTime()) {
      folded ??= copyFolded(tally.folded);
      fold(folded, last);
    }
    last = minute;
  }
  return { gpuUuid: tally.gpuUuid, hourMs: tally.hourMs, folded: folded ?? tally.folded, last };
}

/** Minutes and sample count of the hour as the tally has them: what the stored minutes must add up to. */
export function tallyTotals(tally: HourTally): { minutes: number; samples: number } {
  return { minutes: tally.folded.minutes + 1, samples: tally.folded.samples + tally.last.samples };
}

function meanWith(mean: Mean, value: number | null): number | null {
  const sum = value === null ? mean.sum : mean.sum + value;
  const count = value === null ? mean.count : mean.count + 1;
  return count === 0 ? null : sum / count;
}

/**
 * The booker of the hour: whoever held the GPU for most of its minutes;
 * "nobody" (null) is a candidate too, so a 10-minute booking does not claim
 * the hour. A tie goes to a person, then to the one who held it first.
 */
function mostMinutes(bookers: Map<string | null, number>, last: string | null): string | null {
  let best: string | null = null;
  let bestCount = 0;
  const consider = (bookedBy: string | null, count: number) => {
    if (count > bestCount || (count === bestCount && best === null && bookedBy !== null)) {
      best = bookedBy;
      bestCount = count;
    }
  };
  for (const [bookedBy, count] of bookers) consider(bookedBy, bookedBy === last ? count + 1 : count);
  if (!bookers.has(last)) consider(last, 1);
  return best;
}

/** The hour row of a tally. */
export function hourRowOf(tally: HourTally): HourRow {
  const { folded, last } = tally;
  return {
    gpuUuid: tally.gpuUuid,
    hour: new Date(tally.hourMs),
    hostId: last.hostId,
    samples: folded.minutes + 1,
    utilAvg: meanWith(folded.util, last.utilAvg),
    utilMax: larger(folded.utilMax, last.utilMax),
    memUsedAvg: meanWith(folded.mem, last.memUsedAvg),
    memUsedMax: larger(folded.memUsedMax, last.memUsedMax),
    memTotal: larger(folded.memTotal, last.memTotal),
    powerAvg: meanWith(folded.power, last.powerAvg),
    tempAvg: meanWith(folded.temp, last.tempAvg),
    tempMax: larger(folded.tempMax, last.tempMax),
    bookedByUserId: mostMinutes(folded.bookers, last.bookedByUserId),
    runnerUserId: mostMinutes(folded.runners, last.runnerUserId ?? null),
    busyMinutes: folded.busyMinutes + (last.busy ? 1 : 0),
    simulated: folded.simulated && last.simulated,
  };
}

/**
 * One GPU-hour from its minute rows (all of the same GPU and hour, at least
 * one): averages are means over minutes, the booker is whoever held it for
 * most minutes (the tally above, which the flush also uses to bring an
 * hour up to date minute by minute).
 */
export function rollupHour(minutes: MinuteRow[], hourMs: number): HourRow {
  return hourRowOf(tallyMinutes(minutes, hourMs));
}

/** Groups minute rows by GPU and hour and rolls each group up. */
export function rollupHours(minutes: MinuteRow[]): HourRow[] {
  const groups = new Map<string, { hourMs: number; rows: MinuteRow[] }>();
  for (const row of minutes) {
    const hourMs = floorTo(row.minute.getTime(), HOUR_MS);
    const key = `${row.gpuUuid}\u0000${hourMs}`;
    const group = groups.get(key);
    if (group) group.rows.push(row);
    else groups.set(key, { hourMs, rows: [row] });
  }
  return [...groups.values()].map((group) => rollupHour(group.rows, group.hourMs));
}
