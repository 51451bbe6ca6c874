import { dateFormatter } from "@/lib/format/local-time";

/**
 * Display formatting shared by the fleet view, the GPU detail page and the
 * wall display. Every helper answers "—" for a missing value: a GPU that does
 * not report its power must never look like it draws 0 W.
 */

export const DASH = "—";

const MIB_PER_GIB = 1024;

type Maybe = number | null | undefined;

function isNumber(value: Maybe): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** Fixed decimals, but "80 GiB" rather than "80.0 GiB" for whole numbers. */
function trimmed(value: number, digits: number): string {
  const text = value.toFixed(digits);
  return text.includes(".") ? text.replace(/\.0+$/, "") : text;
}

/** 12595.2 MiB → "12.3 GiB". Always in GiB so that values on one card compare at a glance. */
export function formatGiB(mib: Maybe, digits = 1): string {
  if (!isNumber(mib)) return DASH;
  return `${trimmed(mib / MIB_PER_GIB, digits)} GiB`;
}

/** Process memory: "512 MiB" below 1 GiB, "12.3 GiB" above. */
export function formatMemory(mib: Maybe): string {
  if (!isNumber(mib)) return DASH;
  if (Math.abs(mib) < MIB_PER_GIB) return `${Math.round(mib)} MiB`;
  return formatGiB(mib);
}

/** "12.3 / 80 GiB"; either side may be unknown. */
export function formatMemoryUsage(usedMiB: Maybe, totalMiB: Maybe): string {
  if (!isNumber(usedMiB) && !isNumber(totalMiB)) return DASH;
  const used = isNumber(usedMiB) ? trimmed(usedMiB / MIB_PER_GIB, 1) : DASH;
  const total = isNumber(totalMiB) ? trimmed(totalMiB / MIB_PER_GIB, 1) : DASH;
  return `${used} / ${total} GiB`;
}

/** Share of a whole in percent (0–100), or null when it cannot be known. */
export function ratioPercent(part: Maybe, whole: Maybe): number | null {
  if (!isNumber(part) || !isNumber(whole) || whole <= 0) return null;
  return Math.min(100, Math.max(0, (part / whole) * 100));
}

export function formatPercent(value: Maybe): string {
  if (!isNumber(value)) return DASH;
  return `${Math.round(value)}%`;
}

export function formatWatts(value: Maybe): string {
  if (!isNumber(value)) return DASH;
  return `${Math.round(value)} W`;
}

/** "245 / 700 W"; the limit is left out when the GPU does not report one. */
export function formatPower(drawW: Maybe, limitW: Maybe): string {
  if (!isNumber(drawW)) return DASH;
  if (!isNumber(limitW)) return formatWatts(drawW);
  return `${Math.round(drawW)} / ${Math.round(limitW)} W`;
}

export function formatTemperature(celsius: Maybe): string {
  if (!isNumber(celsius)) return DASH;
  return `${Math.round(celsius)} °C`;
}

function toMillis(time: string | number | Date | null | undefined): number | null {
  if (time === null || time === undefined) return null;
  const ms = time instanceof Date ? time.getTime() : typeof time === "number" ? time : Date.parse(time);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * "3 s ago", "5 min ago", "2 h ago", "4 d ago". A time slightly in the future
 * (clocks of agent, server and browser never agree exactly) reads "just now".
 */
export function formatRelativeTime(
  time: string | number | Date | null | undefined,
  nowMs: number,
  never = DASH,
): string {
  const then = toMillis(time);
  if (then === null) return never;
  const seconds = Math.floor((nowMs - then) / 1000);
  if (seconds < 1) return "just now";
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} d ago`;
}

function dateTimeFormat(options: Intl.DateTimeFormatOptions, locale?: string, timeZone?: string) {
  return dateFormatter(options, { locale, timeZone });
}

export interface TimeFormatOptions {
  /** Defaults to the viewer's (lib/format/local-time.ts); tests pin it so they do not depend on the machine. */
  timeZone?: string;
  locale?: string;
}

/** Clock time for chart axes: "14:05" in the viewer's time zone. */
export function formatClockTime(ms: number, options: TimeFormatOptions = {}): string {
  return dateTimeFormat({ hour: "2-digit", minute: "2-digit", hourCycle: "h23" }, options.locale, options.timeZone).format(ms);
}

/** Clock time with seconds, for tooltips: "14:05:09". */
export function formatClockTimeSeconds(ms: number, options: TimeFormatOptions = {}): string {
  return dateTimeFormat(
    { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" },
    options.locale,
    options.timeZone,
  ).format(ms);
}

/** When a process started: "Tue 3 Mar, 14:05" (date included because jobs run for days), the one day-and-time format (lib/format/local-time.ts). */
export function formatDateTime(
  time: string | number | Date | null | undefined,
  options: TimeFormatOptions = {},
): string {
  const ms = toMillis(time);
  if (ms === null) return DASH;
  return dateTimeFormat(
    { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" },
    options.locale,
    options.timeZone,
  ).format(ms);
}
