import type { GpuPoint } from "@/lib/live";

/** What the detail page's charts plot: one row per second, memory already in GiB. */
export interface GpuChartRow {
  /** Milliseconds since the epoch. */
  t: number;
  util: number | null;
  memGiB: number | null;
  powerW: number | null;
  tempC: number | null;
}

export interface TimeAxis {
  domain: [number, number];
  ticks: number[];
}

export const HISTORY_SPAN_MS = 15 * 60_000;
const TICK_STEP_MS = 3 * 60_000;

/** Nulls stay null so that the line shows a gap where the GPU did not answer. */
export function toChartRows(points: GpuPoint[]): GpuChartRow[] {
  return points.map((point) => ({
    t: point.t,
    util: point.util,
    memGiB: point.memUsedMiB === null ? null : point.memUsedMiB / 1024,
    powerW: point.powerW,
    tempC: point.tempC,
  }));
}

/**
 * A fixed 15-minute window ending at `endMs`, with ticks on whole
 * 3-minute marks. Every time zone offset in use is a multiple of 15 minutes,
 * so marks aligned in UTC also fall on whole minutes in the viewer's zone.
 */
export function timeAxis(endMs: number, spanMs = HISTORY_SPAN_MS, stepMs = TICK_STEP_MS): TimeAxis {
  const start = endMs - spanMs;
  const ticks: number[] = [];
  for (let tick = Math.ceil(start / stepMs) * stepMs; tick <= endMs; tick += stepMs) ticks.push(tick);
  return { domain: [start, endMs], ticks };
}

/** Upper bound for a chart's value axis: at least the hardware limit, more if a reading exceeds it. */
export function upperBound(rows: GpuChartRow[], key: "memGiB" | "powerW" | "tempC", floor: number | null): number | undefined {
  let max = floor ?? Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    const value = row[key];
    if (value !== null && value > max) max = value;
  }
  return Number.isFinite(max) ? max : undefined;
}
