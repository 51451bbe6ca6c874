import type { Prisma } from "@prisma/client";
import { bookingState } from "@/lib/domain/booking-state";
import { writeAudit } from "@/server/access/audit-log";
import { endParts, readDemoBookingsToEnd } from "@/server/bookings/store/booking-writes";
import { auditBookingName, auditSnapshot } from "@/server/bookings/views/booking-view";

/**
 * Ends, inside the caller's transaction, every booking that is the demo's:
 * booked for a demo person or on a simulated host, and not over yet. A
 * running one ends now, a scheduled one where it starts (as an admin's
 * cancel does, server/bookings/commands/end-booking.ts), each audited with
 * the reason; a booking of a real person on a real host is never among
 * them. Returns how many ended and how many were cancelled before they began.
 */
export async function endDemoBookings(
  tx: Prisma.TransactionClient,
  demo: { peopleIds: readonly string[]; hostIds: readonly string[] },
  options: { actorId: string | null; reason: string; now: Date },
): Promise<{ ended: number; cancelled: number }> {
  const nowMs = options.now.getTime();
  const rows = await readDemoBookingsToEnd(tx, demo, options.now);
  let ended = 0;
  let cancelled = 0;
  for (const row of rows) {
    const scheduled = bookingState(row, nowMs) === "scheduled";
    const endsAt = scheduled ? row.startsAt : options.now;
    await endParts(tx, [row.id], endsAt, { status: "cancelled", cancelReason: options.reason, cancelledById: options.actorId });
    const booking = await auditBookingName(tx, row.id);
    await writeAudit(tx, {
      actorId: options.actorId,
      action: "reservation.cancel",
      entityType: "reservation",
      entityId: row.id,
      before: auditSnapshot(row, { booking }),
      after: auditSnapshot({ ...row, endsAt, status: "cancelled" }, { booking, reason: options.reason }),
      at: options.now,
    });
    if (scheduled) cancelled += 1;
    else ended += 1;
  }
  return { ended, cancelled };
}
