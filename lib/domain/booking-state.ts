/**
 * A booking's state follows from its stored status and its times, so
 * that nothing has to run at a start or an end for the state to be right:
 * "booked" is scheduled before `startsAt`, active within [startsAt, endsAt)
 * and expired from `endsAt` on. Releasing and cancelling move `endsAt`.
 */

export type BookingStatus = "booked" | "released" | "cancelled";
export type BookingState = "scheduled" | "active" | "expired" | "released" | "cancelled";

type TimeValue = string | number | Date;

function toMs(time: TimeValue): number {
  return typeof time === "number" ? time : typeof time === "string" ? Date.parse(time) : time.getTime();
}

export function bookingState(
  booking: { status: string; startsAt: TimeValue; endsAt: TimeValue },
  nowMs: number,
): BookingState {
  if (booking.status === "cancelled") return "cancelled";
  if (booking.status === "released") return "released";
  if (nowMs < toMs(booking.startsAt)) return "scheduled";
  if (nowMs < toMs(booking.endsAt)) return "active";
  return "expired";
}

/** Whether two half-open ranges [aStart, aEnd) and [bStart, bEnd) share an instant: back-to-back does not. */
export function rangesOverlap(aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  return aStart < bEnd && bStart < aEnd && aStart < aEnd && bStart < bEnd;
}

export const STATE_LABELS: Record<BookingState, string> = {
  scheduled: "Upcoming",
  active: "Active",
  expired: "Ended",
  released: "Released",
  cancelled: "Cancelled",
};
