import type { GpuPoint } from "@/lib/live/live";

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

/**
 * A value axis that hugs the data, padded and rounded to `step`: temperature
 * between 38 and 44 °C reads better on 30–50 than on 0–100. Never below zero.
 */
export function paddedDomain(rows: GpuChartRow[], key: "memGiB" | "powerW" | "tempC", step: number): [number, number] | undefined {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    const value = row[key];
    if (value === null) continue;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  if (!Number.isFinite(min)) return undefined;
  const low = Math.max(0, Math.floor((min - step / 2) / step) * step);
  const high = Math.ceil((max + step / 2) / step) * step;
  return [low, Math.max(high, low + step)];
}

/** A value axis ready to draw: its range and where the ticks go. */
export interface ValueAxis {
  domain: [number, number];
  ticks: number[];
}

export interface ChartScales {
  util: ValueAxis;
  memGiB: ValueAxis & { totalGiB: number | null };
  powerW: ValueAxis & { limitW: number | null };
  tempC: ValueAxis | undefined;
}

/** A round tick step that cuts `span` into about five parts: 1, 2, 2.5 or 5 times a power of ten. */
export function niceStep(span: number): number {
  const raw = span / 5;
  if (!(raw > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const factor = [1, 2, 2.5, 5, 10].find((candidate) => candidate * magnitude >= raw) ?? 10;
  return factor * magnitude;
}

/** From zero up to the first round tick at or above `top`. */
export function zeroBasedAxis(top: number): ValueAxis {
  const step = niceStep(top);
  const end = Math.max(step, Math.ceil(top / step - 1e-9) * step);
  return { domain: [0, end], ticks: ticksBetween(0, end, step) };
}

function ticksBetween(start: number, end: number, step: number): number[] {
  const ticks: number[] = [];
  // Counting steps rather than adding them keeps 0.1-style steps free of float drift.
  for (let i = 0; start + i * step <= end + 1e-9; i++) ticks.push(Number((start + i * step).toFixed(6)));
  return ticks;
}

/**
 * Value axes for the four charts. Memory and power are drawn against the
 * hardware's total and limit, so that "how close to full" is visible at once.
 */
export function chartScales(
  rows: GpuChartRow[],
  limits: { memoryTotalMiB: number | null; powerLimitW: number | null },
): ChartScales {
  const totalGiB = limits.memoryTotalMiB === null ? null : limits.memoryTotalMiB / 1024;
  const temp = paddedDomain(rows, "tempC", 10);
  return {
    util: { domain: [0, 100], ticks: [0, 25, 50, 75, 100] },
    memGiB: { ...zeroBasedAxis(upperBound(rows, "memGiB", totalGiB) ?? 1), totalGiB },
    powerW: { ...zeroBasedAxis(upperBound(rows, "powerW", limits.powerLimitW) ?? 1), limitW: limits.powerLimitW },
    tempC: temp && { domain: temp, ticks: ticksBetween(temp[0], temp[1], niceStep(temp[1] - temp[0])) },
  };
}
