import type { HostRule, WeeklyWindow } from "@/lib/domain/team-schema";

/**
 * Which hosts a team or person may book, and when. Rules are read in order
 * and the first whose pattern matches the host decides (`ruleFor`, in lib/
 * so that the form asks it too), so "vision-* at weekends, then *" gives
 * the vision group's servers to everyone else only at weekends. No rule
 * matching: the host may not be booked.
 */

const DAY_NAMES = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MINUTES_PER_WEEK = 7 * 24 * 60;

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(":").map(Number);
  return h * 60 + m;
}

/** Minute of the week (0 = Sunday 00:00) of an instant in a time zone. */
function minuteOfWeek(ms: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(new Date(ms));
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? "";
  return DAY_NAMES.indexOf(get("weekday")) * 1440 + Number(get("hour")) * 60 + Number(get("minute"));
}

/** The windows as [from, to) minute-of-week intervals. */
function intervals(windows: readonly WeeklyWindow[]): [number, number][] {
  return windows.flatMap((window) => window.days.map((day): [number, number] => [day * 1440 + minutesOf(window.from), day * 1440 + minutesOf(window.to)]));
}

function inside(list: [number, number][], minute: number): boolean {
  return list.some(([from, to]) => minute >= from && minute < to);
}

/**
 * Whether [startMs, endMs) lies inside the rule's windows (always, for a
 * rule without windows); else the first instant outside them. Walks from
 * edge to edge of the windows, so a year-long booking costs a few hundred
 * steps, not a check per minute.
 */
export function firstInstantOutside(rule: HostRule, startMs: number, endMs: number): number | null {
  if (!rule.windows || rule.windows.length === 0) return null;
  const zone = rule.timeZone ?? "UTC";
  const list = intervals(rule.windows);
  const edges = [...new Set(list.flat())].sort((a, b) => a - b);
  let t = Math.floor(startMs / 60_000) * 60_000;
  if (t < startMs) t = startMs;
  while (t < endMs) {
    const minute = minuteOfWeek(t, zone);
    if (!inside(list, minute)) return t;
    // Jump to the next edge of a window; a daylight-saving change may land the jump an hour off, which the next step sees.
    const next = edges.find((edge) => edge > minute) ?? edges[0] + MINUTES_PER_WEEK;
    const step = Math.max(1, next - minute);
    t = (Math.floor(t / 60_000) + step) * 60_000;
  }
  return null;
}

/** The first instant at or after `fromMs` inside the windows, within a week (null: none). */
export function nextInstantInside(rule: HostRule, fromMs: number): number | null {
  if (!rule.windows || rule.windows.length === 0) return fromMs;
  const zone = rule.timeZone ?? "UTC";
  const list = intervals(rule.windows);
  const starts = [...new Set(list.map(([from]) => from))].sort((a, b) => a - b);
  let t = fromMs;
  for (let i = 0; i < 2 * starts.length + 4; i += 1) {
    const minute = minuteOfWeek(t, zone);
    if (inside(list, minute)) return t;
    const next = starts.find((start) => start > minute) ?? starts[0] + MINUTES_PER_WEEK;
    t = (Math.floor(t / 60_000) + (next - minute)) * 60_000;
  }
  return null;
}

/** "Mon–Fri 08:00–18:00, Sat 00:00–24:00 (UTC)". */
export function describeWindows(rule: HostRule): string {
  if (!rule.windows || rule.windows.length === 0) return "at any time";
  const text = rule.windows
    .map((window) => {
      const days = [...window.days].sort((a, b) => a - b);
      const contiguous = days.length > 2 && days.every((day, i) => i === 0 || day === days[i - 1] + 1);
      const label = contiguous ? `${DAY_NAMES[days[0]]}–${DAY_NAMES[days[days.length - 1]]}` : days.map((day) => DAY_NAMES[day]).join(", ");
      return `${label} ${window.from}–${window.to}`;
    })
    .join(", ");
  return `${text} (${rule.timeZone ?? "UTC"})`;
}
