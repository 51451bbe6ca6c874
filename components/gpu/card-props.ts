import type { GpuPoint, LiveBooking, LiveGpu } from "@/lib/live/live";
import type { GpuState } from "@/lib/domain/gpu-availability";
import type { PersonRef } from "@/lib/domain/booking-types";
import type { ProcessInfo } from "@/lib/domain/snapshot";

export interface GpuCardBooking {
  current: LiveBooking | null;
  next: LiveBooking | null;
}

export interface GpuCardProps {
  gpu: LiveGpu;
  sparkline: GpuPoint[];
  /** The host is offline: the values are its last known ones. */
  stale: boolean;
  /** Server-clock now, for the age of stale values and the days of bookings. */
  nowMs: number;
  /** The booking that holds the GPU now and the next one; absent where bookings are not shown. */
  booking?: GpuCardBooking;
  /** Everyone named on the page (lib/format/person-name.ts); it changes with the bookings, which the comparison already watches. */
  people?: PersonRef[];
}

/**
 * Whether a card shows anything that moves with the clock: the age of a
 * stale card's values, or the day of its current or next booking. Other
 * cards change only when their GPU does.
 */
export function cardNeedsClock(stale: boolean, booking: GpuCardBooking | undefined): boolean {
  return stale || Boolean(booking?.current) || Boolean(booking?.next);
}

/** What a card is given besides its GPU's readings: the fleet view's cards take those from the store themselves. */
export type CardContext = Omit<GpuCardProps, "gpu" | "sparkline">;

/**
 * Whether a card shows the same given its context: its staleness and
 * bookings, and the clock only where the card shows it. The booking is
 * compared by its two entries: the page looks it up anew on each render.
 */
export function sameCardContext(prev: CardContext, next: CardContext): boolean {
  if (prev.stale !== next.stale || Boolean(prev.booking) !== Boolean(next.booking)) return false;
  if (prev.booking && next.booking && (prev.booking.current !== next.booking.current || prev.booking.next !== next.booking.next)) {
    return false;
  }
  return prev.nowMs === next.nowMs || !cardNeedsClock(next.stale, next.booking);
}

/**
 * React.memo's comparison for the fleet's cards. The page re-renders once a
 * second for the clock and once a second for the delta; with 256 cards,
 * drawing every card twice a second was most of the page's main-thread time.
 * A card is drawn again only when its GPU, sparkline, staleness or bookings
 * changed, or when the clock moved and the card shows the clock.
 */
export function sameCardProps(prev: GpuCardProps, next: GpuCardProps): boolean {
  return prev.gpu === next.gpu && prev.sparkline === next.sparkline && sameCardContext(prev, next);
}

/**
 * Whether two process lists show the same rows: every delta brings each
 * GPU's list anew, mostly with the same processes, and a card's list is its
 * largest part of the page to compare and patch.
 */
export function sameProcessRows(prev: ProcessInfo[], next: ProcessInfo[]): boolean {
  if (prev === next) return true;
  if (prev.length !== next.length) return false;
  return prev.every((row, i) => {
    const other = next[i];
    return (
      row.pid === other.pid &&
      row.user === other.user &&
      row.usedMemoryMiB === other.usedMemoryMiB &&
      row.command === other.command &&
      row.name === other.name
    );
  });
}

/** What a card's booking link offers: only a free GPU gets the green "Book". */
export type BookLinkKind = "free" | "after" | "claim" | "busy" | "other";

/**
 * The card's booking link for a GPU in this state: "Book after" while a
 * booking holds it; "Book" (green) when free; on work without a booking,
 * "Claim" when it is only the viewer's own and "Book anyway" when it is
 * someone else's; a plain "Book" otherwise (an error, an offline host).
 */
export function bookLinkKind(state: GpuState, booked: boolean, mine: boolean): BookLinkKind {
  if (booked) return "after";
  if (state === "free") return "free";
  if (state === "unbooked_use") return mine ? "claim" : "busy";
  return "other";
}

/**
 * Whether `next` differs from `prev` in readings only (utilization, memory,
 * temperature, power, clocks, each process's memory): the same processes
 * and the same error count, which is what a card's state, its attribution
 * and its process rows are made of.
 */
export function readingsOnlyChanged(prev: LiveGpu, next: LiveGpu): boolean {
  if (prev.uuid !== next.uuid || prev.eccErrorsUncorrected !== next.eccErrorsUncorrected) return false;
  if (prev.processes.length !== next.processes.length) return false;
  return prev.processes.every((row, i) => {
    const other = next.processes[i];
    return row.pid === other.pid && row.user === other.user && row.command === other.command && row.name === other.name;
  });
}

/** How often a card the browser does not render (content-visibility skips it, off screen) takes new readings. */
export const OFFSCREEN_READINGS_MS = 5_000;

/**
 * Whether a card off screen should take the readings sampled at `nextMs`
 * while it shows those of `heldMs`: once per OFFSCREEN_READINGS_MS window,
 * each card in its own second of the window (`phase`, its place on the
 * page), so that the cards off screen refresh a few at a time rather than
 * all in one long task every few seconds.
 */
export function offscreenRefreshDue(heldMs: number, nextMs: number, phase: number): boolean {
  if (!Number.isFinite(heldMs) || !Number.isFinite(nextMs)) return true;
  const shift = (phase % (OFFSCREEN_READINGS_MS / 1000)) * 1000;
  return Math.floor((nextMs - shift) / OFFSCREEN_READINGS_MS) !== Math.floor((heldMs - shift) / OFFSCREEN_READINGS_MS);
}
