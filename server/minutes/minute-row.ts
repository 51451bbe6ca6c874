/**
 * A GPU-minute as the usage history stores it, and the clock arithmetic of
 * minutes and hours: below server/history (which re-exports them from
 * rollup-math.ts) so that the idle rule (server/bookings/) reads stored
 * minutes without importing the history's tick consumers.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
/** A UTC day: the day tier's row (server/history/day-tier.ts). */
export const DAY_MS = 24 * HOUR_MS;

/** One GPU for one minute, as stored in its GPU-hour's GpuMinuteBlock (minute-block.ts). */
export interface MinuteRow {
  gpuUuid: string;
  /** Start of the minute (UTC). */
  minute: Date;
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
  /** The booking's person (bookedBy); the column keeps its first name. */
  bookedByUserId: string | null;
  /** Who ran there, as the tick attributed the GPU's work; null: nobody known (absent in rows made before it was kept). */
  runnerUserId?: string | null;
  busy: boolean;
  simulated: boolean;
}

export function floorTo(ms: number, step: number): number {
  return Math.floor(ms / step) * step;
}
