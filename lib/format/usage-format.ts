import { DASH } from "@/lib/format/format";
import { dateFormatter, zoneOffsetMs } from "@/lib/format/local-time";

/**
 * Formatting and time ticks for the usage pages, whose ranges run from an
 * hour to a month (the live charts' helpers assume 15 minutes).
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** GPU-hours: "0.4", "12.3", "1,234". */
export function formatGpuHours(hours: number | null | undefined): string {
  if (hours === null || hours === undefined || !Number.isFinite(hours)) return DASH;
  if (hours === 0) return "0";
  if (Math.abs(hours) < 0.05) return "< 0.1";
  if (Math.abs(hours) >= 100) return Math.round(hours).toLocaleString("en-US");
  return hours.toFixed(1);
}

export function formatPct(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return DASH;
  return `${value.toFixed(digits)}%`;
}

export interface TimeZoneOptions {
  /** The viewer's by default; tests pin one. */
  timeZone?: string;
}

function format(options: Intl.DateTimeFormatOptions, timeZone?: string): Intl.DateTimeFormat {
  return dateFormatter(options, { timeZone });
}

function zoneOffset(ms: number, timeZone?: string): number {
  return zoneOffsetMs(ms, { timeZone });
}

const TICK_STEPS = [5 * MINUTE_MS, 10 * MINUTE_MS, 15 * MINUTE_MS, 30 * MINUTE_MS, HOUR_MS, 2 * HOUR_MS, 3 * HOUR_MS, 6 * HOUR_MS, 12 * HOUR_MS, DAY_MS, 2 * DAY_MS, 7 * DAY_MS];

/**
 * Tick marks on whole local times (every 10 minutes, 3 hours, day…), at
 * most `maxTicks` of them inside [fromMs, toMs].
 */
export function timeTicks(fromMs: number, toMs: number, maxTicks = 8, options: TimeZoneOptions = {}): number[] {
  const span = toMs - fromMs;
  const step = TICK_STEPS.find((candidate) => span / candidate <= maxTicks) ?? 7 * DAY_MS;
  const offset = zoneOffset(fromMs, options.timeZone);
  const ticks: number[] = [];
  for (let local = Math.ceil((fromMs + offset) / step) * step; local - offset <= toMs; local += step) ticks.push(local - offset);
  return ticks;
}

/** An axis label that says as much as the span needs: "14:30", "Mon 14:00", "30 Nov". */
export function formatAxisTime(ms: number, spanMs: number, options: TimeZoneOptions = {}): string {
  const clock = format({ hour: "2-digit", minute: "2-digit", hourCycle: "h23" }, options.timeZone).format(ms);
  if (spanMs <= 36 * HOUR_MS) return clock;
  if (spanMs <= 8 * DAY_MS) {
    const day = format({ weekday: "short", day: "numeric" }, options.timeZone).format(ms).replace(",", "");
    return clock === "00:00" ? day : `${day} ${clock}`;
  }
  return format({ day: "numeric", month: "short" }, options.timeZone).format(ms);
}

/** A bucket in a tooltip: "30 Nov 14:00 – 15:00". */
export function formatBucket(startMs: number, bucketMs: number, options: TimeZoneOptions = {}): string {
  const day = format({ day: "numeric", month: "short" }, options.timeZone);
  const clock = format({ hour: "2-digit", minute: "2-digit", hourCycle: "h23" }, options.timeZone);
  const end = startMs + bucketMs;
  if (bucketMs >= DAY_MS) return `${day.format(startMs)} – ${day.format(end - 1)}`;
  const sameDay = day.format(startMs) === day.format(end);
  return `${day.format(startMs)} ${clock.format(startMs)} – ${sameDay ? "" : `${day.format(end)} `}${clock.format(end)}`;
}

/** A range in words: "30 Nov 14:05 – 1 Dec 14:05". */
export function formatRange(fromMs: number, toMs: number, options: TimeZoneOptions = {}): string {
  // A range over the turn of a year (a year's range always is) names each end's year: "7 Dec 21:00 – 7 Dec 21:00" says nothing.
  const year = format({ year: "numeric" }, options.timeZone);
  const withYear = year.format(fromMs) !== year.format(toMs);
  const full = format({ day: "numeric", month: "short", ...(withYear ? { year: "numeric" } : {}), hour: "2-digit", minute: "2-digit", hourCycle: "h23" }, options.timeZone);
  return `${full.format(fromMs).replace(",", "")} – ${full.format(toMs).replace(",", "")}`;
}

/** "5 min", "1 h", "6 h", "1 d": the width of one point. */
export function formatBucketWidth(bucketMs: number): string {
  if (bucketMs < HOUR_MS) return `${Math.round(bucketMs / MINUTE_MS)} min`;
  if (bucketMs < DAY_MS) return `${Math.round(bucketMs / HOUR_MS)} h`;
  return `${Math.round(bucketMs / DAY_MS)} d`;
}

/** Ticks from 0 past `max` on round steps (1, 2, 2.5 or 5 × 10ⁿ), about `count` of them. */
export function niceTicks(max: number, count = 5): number[] {
  if (!Number.isFinite(max) || max <= 0) return [0, 1];
  const raw = max / Math.max(1, count - 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  const ticks: number[] = [];
  for (let tick = 0; tick < max + step; tick += step) ticks.push(Math.round(tick * 1e6) / 1e6);
  return ticks;
}
