import { formatClockTime, formatClockTimeSeconds, type TimeFormatOptions } from "@/lib/format/format";
import { dateFormatter } from "@/lib/format/local-time";

/**
 * Times as the wall display writes them, in the display's own time zone:
 * "14:00" today, "Tue 14:00" within the week, "3 Mar 14:00" beyond.
 */

/** Calendar day of `ms` in the zone, as text: two times on the same day give the same key. */
function dayKey(ms: number, options: TimeFormatOptions): string {
  return dateFormatter({ year: "numeric", month: "2-digit", day: "2-digit" }, options).format(ms);
}

const WEEK_MS = 6 * 24 * 3600_000;

/** A booking boundary relative to now: "14:00", "Tue 14:00" or "3 Mar 14:00". */
export function formatDisplayTime(time: string, nowMs: number, options: TimeFormatOptions = {}): string {
  const ms = Date.parse(time);
  if (!Number.isFinite(ms)) return "";
  const clock = formatClockTime(ms, options);
  if (dayKey(ms, options) === dayKey(nowMs, options)) return clock;
  if (Math.abs(ms - nowMs) < WEEK_MS) {
    return `${dateFormatter({ weekday: "short" }, options).format(ms)} ${clock}`;
  }
  const date = dateFormatter({ day: "numeric", month: "short" }, options).format(ms);
  return `${date} ${clock}`;
}

/** The time of the last update, with seconds: the wall shows it so that a frozen screen can be told from a quiet one. */
export function formatUpdateTime(ms: number, options: TimeFormatOptions = {}): string {
  return formatClockTimeSeconds(ms, options);
}

/** "42 s", "3 min", "2 h": how long the screen has been stale. */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
