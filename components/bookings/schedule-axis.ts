import { dayKey, floorToHour, formatDay } from "@/lib/format/local-time";

export interface Tick {
  ms: number;
  /** Local midnight: a day starts here. */
  day: boolean;
  label: string | null;
}

/**
 * Hour lines of the timeline in the viewer's zone, with a label every
 * `everyHours` and the day's name at each midnight.
 */
export function hourTicks(fromMs: number, toMs: number, everyHours: number): Tick[] {
  const ticks: Tick[] = [];
  let t = floorToHour(fromMs);
  if (t < fromMs) t = floorToHour(t + 3600_000 + 1000);
  for (let guard = 0; t < toMs && guard < 24 * 60; guard += 1) {
    const hour = new Date(t).getHours();
    const day = hour === 0 || (ticks.length > 0 && dayKey(t) !== dayKey(ticks[ticks.length - 1].ms));
    const label = day ? formatDay(t) : hour % everyHours === 0 ? `${String(hour).padStart(2, "0")}:00` : null;
    ticks.push({ ms: t, day, label });
    t = floorToHour(t + 3600_000 + 1000);
  }
  // The day the timeline starts in, named at its left edge, unless its midnight follows right away.
  const first = ticks[0];
  const nextDay = ticks.find((tick) => tick.day && tick !== first);
  if (first && !first.day && (!nextDay || nextDay.ms - first.ms >= everyHours * 3600_000)) {
    ticks[0] = { ...first, day: true, label: formatDay(first.ms) };
  }
  // A day's name is wider than an hour: no hour label right after it, and none cut off at the right edge.
  const gapMs = everyHours * 3600_000;
  let lastDayMs = Number.NEGATIVE_INFINITY;
  return ticks.map((tick) => {
    if (tick.day) lastDayMs = tick.ms;
    const crowded = !tick.day && tick.ms - lastDayMs < gapMs;
    const atEdge = toMs - tick.ms < (tick.day ? gapMs : gapMs / 2);
    return tick.label && (crowded || atEdge) ? { ...tick, label: null } : tick;
  });
}

/** Where an instant sits on the timeline, in percent of its width (clamped). */
export function percentAt(ms: number, fromMs: number, toMs: number): number {
  return Math.min(100, Math.max(0, ((ms - fromMs) / (toMs - fromMs)) * 100));
}

/** The instant a click at `ratio` of the width names, rounded down to the half hour. */
export function slotAt(ratio: number, fromMs: number, toMs: number): number {
  const ms = fromMs + ratio * (toMs - fromMs);
  return Math.floor(ms / 1_800_000) * 1_800_000;
}
