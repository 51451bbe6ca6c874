import { MINUTE_MS } from "@/server/minutes/minute-row";
import type { Client } from "@/server/minutes/minute-store";
import { readHeldUnitRanges } from "@/server/bookings/store/booked-units";

/**
 * Who held (booked) which GPU when, read straight from the booking
 * tables: a GPU is held over [startsAt, endsAt) of each ReservationGpu row;
 * releasing or cancelling moves endsAt, so a withdrawn booking is an empty
 * range and holds nothing. Read-only: the booking rules live in
 * server/bookings/.
 */

export interface BookedInterval {
  gpuUuid: string;
  reservationId: string;
  userId: string;
  startMs: number;
  endMs: number;
}

/** Bookings of any GPU that overlap [from, to). */
export async function findBookedIntervals(client: Client, from: Date, to: Date): Promise<BookedInterval[]> {
  const rows = await readHeldUnitRanges(client, from, to);
  return rows
    .filter((row) => row.endsAt > row.startsAt)
    .map((row) => ({
      gpuUuid: row.gpu.uuid,
      reservationId: row.reservation.id,
      userId: row.reservation.userId,
      startMs: row.startsAt.getTime(),
      endMs: row.endsAt.getTime(),
    }));
}

/**
 * Who booked one GPU-minute: the person of the booking that covers most of
 * [minute, minute + 1 min), or null when none covers any of it.
 */
export function bookedByOfMinute(intervals: BookedInterval[], minuteMs: number): string | null {
  let best: string | null = null;
  let bestOverlap = 0;
  for (const interval of intervals) {
    const overlap = Math.min(interval.endMs, minuteMs + MINUTE_MS) - Math.max(interval.startMs, minuteMs);
    if (overlap > bestOverlap) {
      best = interval.userId;
      bestOverlap = overlap;
    }
  }
  return best;
}

/** Groups intervals by GPU UUID. */
export function intervalsByGpu(intervals: BookedInterval[]): Map<string, BookedInterval[]> {
  const byGpu = new Map<string, BookedInterval[]>();
  for (const interval of intervals) {
    const list = byGpu.get(interval.gpuUuid);
    if (list) list.push(interval);
    else byGpu.set(interval.gpuUuid, [interval]);
  }
  return byGpu;
}
