import { bookingState } from "@/lib/domain/booking-state";
import type { BookingView } from "@/lib/domain/booking-types";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import type { Actor, ServiceOptions } from "@/server/access/actor";
import { writeAudit } from "@/server/access/audit-log";
import { bookingTransaction } from "@/server/bookings/store/booking-transaction";
import { getBookingView } from "@/server/bookings/views/list-bookings";
import { auditParts, findWholeBooking, wholeBookingLock } from "@/server/bookings/commands/whole-booking";
import { endParts, readPartInTransaction } from "@/server/bookings/store/booking-writes";
import { auditBookingName, auditSnapshot } from "@/server/bookings/views/booking-view";
import { can } from "@/server/access/permissions";

type Ending = { kind: "release" } | { kind: "cancel"; reason: string };

/**
 * Ends a booking early. An active booking ends now; a scheduled one ends
 * where it starts (it never held anything). The GPUs' ranges move with it,
 * so the time frees up for others at once.
 */
async function endBooking(actor: Actor, id: string, ending: Ending, options: ServiceOptions): Promise<BookingView> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  const nowMs = now.getTime();
  // A booking across nodes ends whole: every part, in one transaction.
  const whole = await findWholeBooking(client, id);
  if (!whole || !can.manageBooking(actor, whole.owner)) throw new AppError("not_found", "No such reservation");
  if (ending.kind === "cancel" && !can.cancelBooking(actor)) {
    throw new AppError("forbidden", "Only an admin can cancel a booking; release your own instead");
  }

  await bookingTransaction(client, wholeBookingLock(whole), async (tx, changes) => {
    const row = await readPartInTransaction(tx, whole.id);
    const state = bookingState(row, nowMs);
    if (state !== "scheduled" && state !== "active") {
      throw new AppError("conflict", `This booking has already ${state === "expired" ? "ended" : `been ${state}`}`);
    }
    const endsAt = state === "scheduled" ? row.startsAt : now;
    const status = ending.kind === "release" ? "released" : "cancelled";
    await endParts(tx, whole.partIds, endsAt, ending.kind === "release" ? { status: "released" } : { status: "cancelled", cancelReason: ending.reason, cancelledById: actor.id });
    const parts = auditParts(whole);
    const booking = await auditBookingName(tx, id);
    await writeAudit(tx, {
      actorId: actor.id,
      action: ending.kind === "release" ? "reservation.release" : "reservation.cancel",
      entityType: "reservation",
      entityId: whole.id,
      before: auditSnapshot(row, { booking, ...parts }),
      after: auditSnapshot({ ...row, endsAt, status }, { booking, ...(ending.kind === "cancel" ? { reason: ending.reason } : {}), ...parts }),
      at: now,
    });
    changes.record({ kind: "ended", how: status, bookingId: whole.id, partIds: whole.partIds, by: actor, before: { startsAt: row.startsAt, endsAt: row.endsAt }, after: { startsAt: row.startsAt, endsAt } });
  });

  // Announced by the transaction, once: notifications tell the booker of an end someone else made.
  return getBookingView(client, id, nowMs, actor.id);
}

/** The booker (or an admin) gives the GPUs back before the end. */
export async function releaseBooking(actor: Actor, id: string, options: ServiceOptions = {}): Promise<BookingView> {
  return endBooking(actor, id, { kind: "release" }, options);
}

/** An admin ends someone's booking, with a reason the booker sees. */
export async function cancelBooking(actor: Actor, id: string, reason: string, options: ServiceOptions = {}): Promise<BookingView> {
  const trimmed = reason.trim();
  if (!trimmed) throw new AppError("bad_request", "Tell the booker why", { reason: "Tell the booker why" });
  return endBooking(actor, id, { kind: "cancel", reason: trimmed }, options);
}
