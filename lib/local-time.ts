/**
 * Times as the viewer reads them, in the browser's zone. The API speaks UTC
 * ISO; these turn it into "Today 14:00" and back from a datetime-local input.
 * `timeZone` is for tests, which must not depend on the machine's zone.
 */

export interface ZoneOptions {
  timeZone?: string;
  locale?: string;
}

const cache = new Map<string, Intl.DateTimeFormat>();

function formatter(options: Intl.DateTimeFormatOptions, zone: ZoneOptions): Intl.DateTimeFormat {
  const key = JSON.stringify([options, zone.locale ?? "", zone.timeZone ?? ""]);
  let value = cache.get(key);
  if (!value) {
    value = new Intl.DateTimeFormat(zone.locale, { ...options, timeZone: zone.timeZone });
    cache.set(key, value);
  }
  return value;
}

/** "2026-12-01": the calendar day of an instant in the zone. */
export function dayKey(ms: number, zone: ZoneOptions = {}): string {
  const parts = formatter({ year: "numeric", month: "2-digit", day: "2-digit" }, zone).formatToParts(ms);
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")}`;
}

export function formatClock(ms: number, zone: ZoneOptions = {}): string {
  return formatter({ hour: "2-digit", minute: "2-digit", hourCycle: "h23" }, zone).format(ms);
}

/** "14:00" today, "Tomorrow 09:00", "Tue 3 Dec, 14:00" otherwise: a booking's start or end. */
export function formatWhen(iso: string | number, nowMs: number, zone: ZoneOptions = {}): string {
  const ms = typeof iso === "number" ? iso : Date.parse(iso);
  const day = dayKey(ms, zone);
  if (day === dayKey(nowMs, zone)) return `today ${formatClock(ms, zone)}`;
  if (day === dayKey(nowMs + 86_400_000, zone)) return `tomorrow ${formatClock(ms, zone)}`;
  if (day === dayKey(nowMs - 86_400_000, zone)) return `yesterday ${formatClock(ms, zone)}`;
  return formatter({ weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }, zone).format(ms);
}

/** "Tue 3 Dec": a day heading on the schedule. */
export function formatDay(ms: number, zone: ZoneOptions = {}): string {
  return formatter({ weekday: "short", day: "numeric", month: "short" }, zone).format(ms);
}

/** The value of an `<input type="datetime-local">` for an instant, in the browser's zone. */
export function toLocalInput(ms: number): string {
  const date = new Date(ms);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The instant a datetime-local value names in the browser's zone, as UTC ISO; undefined if it is not a time. */
export function fromLocalInput(value: string): string | undefined {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value)) return undefined;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/** The start of the hour at or before an instant, in the browser's zone (half-hour zones included). */
export function floorToHour(ms: number): number {
  const date = new Date(ms);
  date.setMinutes(0, 0, 0);
  return date.getTime();
}
