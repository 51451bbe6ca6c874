import type { RangeChoice } from "@/lib/domain/usage-range";

/**
 * What the usage pages and the history API receive: series already
 * aggregated by the server, ready to plot. Times are ms since the epoch
 * (UTC); a null value is a gap (no readings), never a zero.
 */

export type UsageGroupBy = "host" | "model";

/** Booker ids of synthetic history (`--demo-history`) whose login matches no account: "sim:alice". */
export const SIMULATED_BOOKER_PREFIX = "sim:";

/** A GPU counts as idle in a minute (or, over long ranges, an hour) below this utilization. */
export const IDLE_UTIL_PCT = 5;

export interface UsageRangeInfo {
  choice: RangeChoice;
  fromMs: number;
  toMs: number;
  /** Width of one point of the utilization series. */
  bucketMs: number;
  /** Width of one heatmap column. */
  heatmapBucketMs: number;
  /** Which rollups answered: per-minute (short ranges) or hourly. */
  source: "minute" | "hour";
}

export interface UtilizationSeries {
  /** One entry per stacked layer; `key` is the field of each point (keys are safe for chart libraries). */
  groups: {
    key: string;
    label: string;
    /** What the layer is ("host:<id>", "model:<name>"): its colour follows from it (lib/palette.ts), not from its place in the list. */
    id: string;
  }[];
  /**
   * Each layer's share of fleet utilization: a layer's value is the sum of
   * its GPUs' utilization divided by the number of GPUs reporting in that
   * bucket, so the stacked layers add up to the fleet's mean utilization (%).
   */
  points: ({ t: number } & Record<string, number | null>)[];
}

export interface HeatmapRow {
  gpuUuid: string;
  hostName: string;
  gpuIndex: number | null;
  /** The unit's name on every surface: "GPU 2", "GPU 0:2 (1g.10gb)"; null for a GPU no longer in the inventory. */
  unit: string | null;
  /** A MIG slice: drawn under its GPU's row. */
  slice: boolean;
  /** False on a MIG slice and on a GPU split into slices: nvidia-smi reports no utilization for them, so their cells are "not reported", not 0 %. */
  utilizationReported: boolean;
  model: string | null;
  /** Mean utilization per column (%), null where the GPU did not report. */
  cells: (number | null)[];
}

export interface UtilizationHeatmap {
  /** Start of each column. */
  columns: number[];
  rows: HeatmapRow[];
}

export interface PersonUsage {
  /** Null for the row of GPU time that nobody had booked. */
  userId: string | null;
  label: string;
  username: string | null;
  simulated: boolean;
  /** GPU-hours of their bookings in the range, up to now (gpuHoursOf: what the quotas count); for the simulated fleet's synthetic history, the minutes it held. */
  bookedGpuHours: number;
  /** Utilization-weighted GPU-hours during those bookings (100 % for an hour = 1). */
  usedGpuHours: number;
  /** Booked GPU-hours below IDLE_UTIL_PCT utilization (never more than the booked hours with readings). */
  idleBookedGpuHours: number;
  /** Booked GPU-hours without readings (before the server or the host's agent first reported, or a gap): unknown, not idle. */
  unknownGpuHours: number;
  /** usedGpuHours over the booked GPU-hours with readings, in %; null without any. */
  efficiencyPct: number | null;
  gpus: number;
  /**
   * GPU-hours of work the live view named as theirs on GPUs nobody had booked
   * (busy time, not utilization-weighted): who squats. Absent where not computed.
   */
  usedWithoutBookingGpuHours?: number;
  /** GPU-hours idle release handed back of their bookings (from each release to the end the booking had), by releases in the range. */
  handedBackGpuHours: number;
  handedBackReleases: number;
}

export interface HostUsage {
  hostId: string;
  hostName: string;
  gpus: number;
  /** GPU-hours with readings. */
  reportedGpuHours: number;
  usedGpuHours: number;
  meanUtilPct: number | null;
  bookedGpuHours: number;
  idleBookedGpuHours: number;
  /** Booked GPU-hours on this host without readings. */
  unknownGpuHours: number;
  /** GPU-hours with at least one process. */
  busyGpuHours: number;
  /** GPU-hours idle release handed back of bookings on this host. */
  handedBackGpuHours: number;
}

export interface UsageTotals {
  reportedGpuHours: number;
  usedGpuHours: number;
  meanUtilPct: number | null;
  bookedGpuHours: number;
  usedWhileBookedGpuHours: number;
  idleBookedGpuHours: number;
  /** Booked GPU-hours without readings: unknown, not idle. */
  unknownGpuHours: number;
  /** Booked GPU-hours with readings: what idle and used-while-booked are shares of. */
  seenBookedGpuHours: number;
  /** Busy GPU-hours on GPUs nobody had booked: the people table's "use without a booking" column summed. */
  unbookedUsedGpuHours: number;
  /** The people table's handed-back column summed: the "handed back by idle release" card. */
  handedBackGpuHours: number;
  handedBackReleases: number;
}

export interface UsageReport {
  range: UsageRangeInfo;
  /** "all": the whole fleet (admins); "self": only the GPU time the viewer booked. */
  scope: "all" | "self";
  groupBy: UsageGroupBy;
  /** True when some of the history in range is synthetic (`--demo-history`). */
  includesSimulated: boolean;
  utilization: UtilizationSeries;
  heatmap: UtilizationHeatmap;
  people: PersonUsage[];
  hosts: HostUsage[];
  totals: UsageTotals;
  /**
   * GPU-hours in range whose minutes could not be read (a corrupt block, a
   * newer gpudesk's after a downgrade) and are left out of every figure
   * above; empty when nothing is. At most 1,000 listed.
   */
  minutesLeftOut: MinutesLeftOut[];
}

/** A GPU-hour of minute detail a report left out, and why. */
export interface MinutesLeftOut {
  gpuUuid: string;
  /** Start of the hour, ms since the epoch (UTC). */
  hourMs: number;
  reason: string;
}

export interface GpuHistoryPoint {
  t: number;
  utilAvg: number | null;
  utilMax: number | null;
  memUsedAvgMiB: number | null;
  memUsedMaxMiB: number | null;
  memTotalMiB: number | null;
  powerAvgW: number | null;
  tempAvgC: number | null;
  tempMaxC: number | null;
}

export interface GpuUsageHistory {
  uuid: string;
  range: Omit<UsageRangeInfo, "heatmapBucketMs">;
  points: GpuHistoryPoint[];
}

export interface BookingEfficiency {
  reservationId: string;
  /** Mean utilization of the booked GPUs over the part of the booking that has readings; null without any. */
  meanUtilPct: number | null;
  /** GPU-minutes of the booking with readings (coverage). */
  coveredGpuMinutes: number;
}
