import type { HandedBackTime } from "@/server/history/handed-back";

/**
 * The one computation of usage: per booking person and host, one cell of
 * booked, used, idle-while-booked, unknown and handed-back GPU-hours, from
 * the stored minutes, the bookings and the idle releases. The people
 * table, the hosts table, the top cards (the "handed back by idle release"
 * card among them), the chart and the CSV all fold these cells, so they
 * sum to the same totals by construction.
 *
 * Booked hours come from the bookings (what the limits count); the minutes
 * say what of that time was seen. Booked time with no minute (before the
 * server or the host's agent first reported, or a gap) is unknown, never
 * idle; minutes a rollup gives a booker beyond their booking (a minute
 * shared with a booking's edge, an hour whose booker held most of it) are
 * capped at the booking, so idle ≤ booked for every cell, person, host and
 * total.
 */

/** GPU time of one booker on one unit, as the rollups sum it (GPUs' worth: a slice weighs its share). */
export interface HeldTime {
  /** The booking's person; null: nobody had booked. */
  bookedBy: string | null;
  host: string;
  /** The physical GPU (a slice's parent), for GPU counts. */
  gpu: string;
  minutes: number;
  /** Utilization-percent minutes (100 % for a minute = 100). */
  utilMinutes: number;
  idleMinutes: number;
  busyMinutes: number;
}

/** One person's GPU time on one host (bookedBy null: time nobody had booked). */
export interface UsageCell extends CellSum {
  bookedBy: string | null;
  host: string;
}

const cellKey = (bookedBy: string | null, host: string) => `${bookedBy ?? ""}\u0000${host}`;

/**
 * The cells of a report. `booked(bookedBy, host)` gives a person's booked
 * GPU-hours on a host in the range, and whether their held minutes also
 * stand for bookings (`synthetic`: the simulated fleet's demo people, whose
 * synthetic history has minutes without bookings, and whose demo bookings
 * may have none): then the larger of the two counts.
 * `bookedOnly` lists (bookedBy, host) pairs that booked without any minute;
 * `handedBack` what idle release handed back of their bookings.
 */
export function usageCells(
  rows: readonly HeldTime[],
  booked: (bookedBy: string, host: string) => { hours: number; synthetic: boolean },
  bookedOnly: readonly { bookedBy: string; host: string }[],
  handedBack: readonly HandedBackTime[] = [],
): UsageCell[] {
  const sums = new Map<string, { bookedBy: string | null; host: string; gpus: Set<string>; held: number; util: number; idle: number; busy: number; handedBack: number; releases: number }>();
  const sumOf = (bookedBy: string | null, host: string) => {
    const key = cellKey(bookedBy, host);
    let sum = sums.get(key);
    if (!sum) {
      sum = { bookedBy, host, gpus: new Set(), held: 0, util: 0, idle: 0, busy: 0, handedBack: 0, releases: 0 };
      sums.set(key, sum);
    }
    return sum;
  };
  for (const row of rows) {
    const sum = sumOf(row.bookedBy, row.host);
    sum.gpus.add(row.gpu);
    sum.held += row.minutes / 60;
    sum.util += row.utilMinutes / 6000;
    sum.idle += row.idleMinutes / 60;
    sum.busy += row.busyMinutes / 60;
  }
  for (const pair of bookedOnly) sumOf(pair.bookedBy, pair.host);
  for (const release of handedBack) {
    const sum = sumOf(release.bookedBy, release.host);
    sum.handedBack += release.gpuHours;
    sum.releases += release.releases;
  }
  return [...sums.values()].map((sum): UsageCell => {
    if (sum.bookedBy === null) {
      return { bookedBy: null, host: sum.host, gpus: sum.gpus, ...NO_BOOKING, usedGpuHours: sum.util, busyGpuHours: sum.busy };
    }
    const fromBookings = booked(sum.bookedBy, sum.host);
    const bookedGpuHours = fromBookings.synthetic ? Math.max(fromBookings.hours, sum.held) : fromBookings.hours;
    const seen = Math.min(sum.held, bookedGpuHours);
    return {
      bookedBy: sum.bookedBy,
      host: sum.host,
      gpus: sum.gpus,
      bookedGpuHours,
      seenGpuHours: seen,
      usedGpuHours: Math.min(sum.util, seen),
      idleBookedGpuHours: Math.min(sum.idle, seen),
      unknownGpuHours: bookedGpuHours - seen,
      busyGpuHours: Math.min(sum.busy, seen),
      handedBackGpuHours: sum.handedBack,
      handedBackReleases: sum.releases,
    };
  });
}

export interface CellSum {
  gpus: Set<string>;
  bookedGpuHours: number;
  /** Booked GPU-hours with readings: min(held, booked). */
  seenGpuHours: number;
  /** Utilization-weighted GPU-hours of the seen booked time (of all time for nobody's cell). */
  usedGpuHours: number;
  idleBookedGpuHours: number;
  /** Booked GPU-hours without readings: not idle, not used, unknown. */
  unknownGpuHours: number;
  /** Busy GPU-hours (a process ran); for nobody's cell, use without a booking. */
  busyGpuHours: number;
  /** GPU-hours idle release handed back (from each release to the end its booking had), by releases in the range. */
  handedBackGpuHours: number;
  handedBackReleases: number;
}

const NO_BOOKING = { bookedGpuHours: 0, seenGpuHours: 0, usedGpuHours: 0, idleBookedGpuHours: 0, unknownGpuHours: 0, busyGpuHours: 0, handedBackGpuHours: 0, handedBackReleases: 0 };

/** The cells summed by person or by host (or all together with `() => ""`). */
export function foldCells<K>(cells: readonly UsageCell[], keyOf: (cell: UsageCell) => K): Map<K, CellSum> {
  const folded = new Map<K, CellSum>();
  for (const cell of cells) {
    const key = keyOf(cell);
    const sum = folded.get(key) ?? { gpus: new Set<string>(), ...NO_BOOKING };
    for (const gpu of cell.gpus) sum.gpus.add(`${cell.host}\u0000${gpu}`);
    sum.bookedGpuHours += cell.bookedGpuHours;
    sum.seenGpuHours += cell.seenGpuHours;
    sum.usedGpuHours += cell.usedGpuHours;
    sum.idleBookedGpuHours += cell.idleBookedGpuHours;
    sum.unknownGpuHours += cell.unknownGpuHours;
    sum.busyGpuHours += cell.busyGpuHours;
    sum.handedBackGpuHours += cell.handedBackGpuHours;
    sum.handedBackReleases += cell.handedBackReleases;
    folded.set(key, sum);
  }
  return folded;
}
