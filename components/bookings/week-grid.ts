/**
 * The arithmetic of the schedule's week view (days across, hours down), in
 * the viewer's zone: where a day starts, which instant a point of a day's
 * column names, how a booking is cut into the days it spans, and which free
 * window a drag selects. Pure, so that it is tested without a browser.
 */

export const SLOT_MS = 30 * 60_000;
export const WEEK_DAYS = 7;

/** Local midnight of the day `ms` falls in, and of the `count` days from it (a 23- or 25-hour day included). */
export function dayStarts(ms: number, count = WEEK_DAYS): number[] {
  const first = new Date(ms);
  first.setHours(0, 0, 0, 0);
  return Array.from({ length: count + 1 }, (_, i) => new Date(first.getFullYear(), first.getMonth(), first.getDate() + i).getTime());
}

/** The half hour a point at `ratio` (0 top … 1 bottom) of a day's column names. */
export function slotInDay(dayStartMs: number, dayEndMs: number, ratio: number): number {
  const clamped = Math.min(1, Math.max(0, ratio));
  const ms = dayStartMs + clamped * (dayEndMs - dayStartMs);
  return Math.min(dayEndMs - SLOT_MS, dayStartMs + Math.floor((ms - dayStartMs) / SLOT_MS) * SLOT_MS);
}

export interface Span {
  startMs: number;
  endMs: number;
}

/** The part of [start, end) within a day, as fractions of the day's column from the top; null outside it. */
export function spanInDay(span: Span, dayStartMs: number, dayEndMs: number): { top: number; height: number } | null {
  const start = Math.max(span.startMs, dayStartMs);
  const end = Math.min(span.endMs, dayEndMs);
  if (end <= start) return null;
  const length = dayEndMs - dayStartMs;
  return { top: (start - dayStartMs) / length, height: (end - start) / length };
}

/**
 * The window a drag from the half hour `fromSlot` to the one `toSlot`
 * (either order) selects on a GPU with these bookings: both half hours
 * whole, from now at the earliest, and cut short where the next booking
 * begins. Null when the drag starts on a booking or all of it is past.
 */
export function dragWindow(fromSlot: number, toSlot: number, busy: readonly Span[], nowMs: number): Span | null {
  let startMs = Math.min(fromSlot, toSlot);
  let endMs = Math.max(fromSlot, toSlot) + SLOT_MS;
  if (endMs <= nowMs) return null;
  startMs = Math.max(startMs, nowMs);
  if (busy.some((span) => span.startMs <= startMs && span.endMs > startMs)) return null;
  for (const span of busy) if (span.startMs > startMs && span.startMs < endMs) endMs = span.startMs;
  return endMs > startMs ? { startMs, endMs } : null;
}
