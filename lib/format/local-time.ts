/**
 * The one place times become text and text becomes times, for every page,
 * picker and chart (the wall display and the usage axes build on it too).
 * The API speaks UTC ISO; this turns it into "today 14:00", "Tue 3 Dec,
 * 14:00" and back from a datetime-local input.
 *
 * One format: day before month, a 24-hour clock ("Tue 3 Dec, 14:00"), in
 * DATE_LOCALE; a per-person locale is not offered yet, so every page writes
 * a date the same way.
 *
 * The zone: the person's own (Settings → Account; `setViewerTimeZone`,
 * called by the page frame) or else the browser's. `timeZone` in the
 * options is for tests, which must not depend on the machine's zone.
 */

export interface ZoneOptions {
  timeZone?: string;
  locale?: string;
}

/** The locale every date is written in (see above). */
export const DATE_LOCALE = "en-GB";

let viewerZone: string | undefined;

/** The person's chosen zone for this page (null or undefined: the browser's). Browser only. */
export function setViewerTimeZone(zone: string | null | undefined): void {
  viewerZone = zone && isTimeZone(zone) ? zone : undefined;
}

/** The zone times are shown in: the person's choice, else the browser's. */
export function viewerTimeZone(): string {
  return viewerZone ?? browserTimeZone();
}

export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** An IANA zone this runtime knows ("Europe/Berlin"). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const cache = new Map<string, Intl.DateTimeFormat>();

/** A cached formatter in the viewer's zone and the one locale (formatters are costly; charts call this per tick). */
export function dateFormatter(options: Intl.DateTimeFormatOptions, zone: ZoneOptions = {}): Intl.DateTimeFormat {
  const timeZone = zone.timeZone ?? viewerZone;
  const locale = zone.locale ?? DATE_LOCALE;
  const key = JSON.stringify([options, locale, timeZone ?? ""]);
  let value = cache.get(key);
  if (!value) {
    value = new Intl.DateTimeFormat(locale, { ...options, timeZone });
    cache.set(key, value);
  }
  return value;
}

const CLOCK: Intl.DateTimeFormatOptions = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
const DAY: Intl.DateTimeFormatOptions = { weekday: "short", day: "numeric", month: "short" };

/** "2026-12-01": the calendar day of an instant in the zone. */
export function dayKey(ms: number, zone: ZoneOptions = {}): string {
  const parts = dateFormatter({ year: "numeric", month: "2-digit", day: "2-digit" }, zone).formatToParts(ms);
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")}`;
}

/** "14:05". */
export function formatClock(ms: number, zone: ZoneOptions = {}): string {
  return dateFormatter(CLOCK, zone).format(ms);
}

/** "14:05:09". */
export function formatClockSeconds(ms: number, zone: ZoneOptions = {}): string {
  return dateFormatter({ ...CLOCK, second: "2-digit" }, zone).format(ms);
}

/** "Tue 3 Dec, 14:00": an instant on any day. */
export function formatDayTime(ms: number, zone: ZoneOptions = {}): string {
  return dateFormatter({ ...DAY, ...CLOCK }, zone).format(ms);
}

/** "Tue 3 Dec 2026, 14:00:09 Europe/Berlin": the whole instant, for a tooltip. */
export function formatFull(iso: string | number, zone: ZoneOptions = {}): string {
  const ms = typeof iso === "number" ? iso : Date.parse(iso);
  if (!Number.isFinite(ms)) return "";
  // en-GB writes "Wed, 2 Dec 2026" once a year is in: the comma goes, as in "Wed 2 Dec, 09:00".
  const text = dateFormatter({ ...DAY, year: "numeric", ...CLOCK, second: "2-digit" }, zone).format(ms).replace(/^([^\s,]+),/, "$1");
  return `${text} ${zone.timeZone ?? viewerTimeZone()}`;
}

/** "14:00" today, "Tomorrow 09:00", "Tue 3 Dec, 14:00" otherwise: a booking's start or end. */
export function formatWhen(iso: string | number, nowMs: number, zone: ZoneOptions = {}): string {
  const ms = typeof iso === "number" ? iso : Date.parse(iso);
  const day = dayKey(ms, zone);
  if (day === dayKey(nowMs, zone)) return `today ${formatClock(ms, zone)}`;
  if (day === dayKey(nowMs + 86_400_000, zone)) return `tomorrow ${formatClock(ms, zone)}`;
  if (day === dayKey(nowMs - 86_400_000, zone)) return `yesterday ${formatClock(ms, zone)}`;
  return formatDayTime(ms, zone);
}

/** "Tue 3 Dec": a day heading on the schedule. */
export function formatDay(ms: number, zone: ZoneOptions = {}): string {
  return dateFormatter(DAY, zone).format(ms);
}

/** Offset of the zone from UTC at `ms`, in ms (east positive). */
export function zoneOffsetMs(ms: number, zone: ZoneOptions = {}): number {
  const parts = dateFormatter(
    { year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric", hourCycle: "h23" },
    { timeZone: zone.timeZone, locale: "en-US" },
  ).formatToParts(ms);
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  const asUtc = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return asUtc - Math.floor(ms / 1000) * 1000;
}

const pad = (value: number) => String(value).padStart(2, "0");

/** The value of an `<input type="datetime-local">` for an instant, in the viewer's zone. */
export function toLocalInput(ms: number, zone: ZoneOptions = {}): string {
  const local = new Date(ms + zoneOffsetMs(ms, zone));
  return `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}`;
}

/** The instant a wall-clock time in the zone names (the later reading where a clock change repeats it). */
function fromWallClock(wallAsUtc: number, zone: ZoneOptions): number {
  // Two passes: the offset at the guess, then at the corrected instant (a clock change between them).
  let ms = wallAsUtc - zoneOffsetMs(wallAsUtc, zone);
  ms = wallAsUtc - zoneOffsetMs(ms, zone);
  return ms;
}

/** The instant a datetime-local value names in the viewer's zone, as UTC ISO; undefined if it is not a time. */
export function fromLocalInput(value: string, zone: ZoneOptions = {}): string | undefined {
  const match = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)/.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h, mi] = match.map(Number);
  const wall = Date.UTC(y, mo - 1, d, h, mi);
  if (!Number.isFinite(wall)) return undefined;
  return new Date(fromWallClock(wall, zone)).toISOString();
}

/** The start of the hour at or before an instant, in the viewer's zone (half-hour zones included). */
export function floorToHour(ms: number, zone: ZoneOptions = {}): number {
  const offset = zoneOffsetMs(ms, zone);
  const local = ms + offset;
  return fromWallClock(local - (((local % 3_600_000) + 3_600_000) % 3_600_000), zone);
}
