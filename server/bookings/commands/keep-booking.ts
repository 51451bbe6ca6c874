import type { BookingView } from "@/lib/domain/booking-types";
import { bookingState } from "@/lib/domain/booking-state";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import type { Actor, ServiceOptions } from "@/server/access/actor";
import { writeAudit } from "@/server/access/audit-log";
import { bookingTransaction } from "@/server/bookings/store/booking-transaction";
import { getBookingView } from "@/server/bookings/views/list-bookings";
import { findWholeBooking, wholeBookingLock } from "@/server/bookings/commands/whole-booking";
import { readPartInTransaction } from "@/server/bookings/store/booking-writes";
import { restartIdleClock } from "@/server/bookings/store/idle-columns";
import { readIdlePolicy } from "@/server/bookings/rules/policy";
import { can } from "@/server/access/permissions";

/**
 * "Keep": the booker (or an admin) starts the idle clock again, at most
 * `idleKeepsPerBooking` times per booking; each keep is in the audit log.
 * Under the booking lock, so a keep and an idle release never both win.
 */
export async function keepBooking(actor: Actor, id: string, options: ServiceOptions = {}): Promise<BookingView> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  const nowMs = now.getTime();
  // A booking across nodes is kept whole: every part's idle clock starts again.
  const whole = await findWholeBooking(client, id);
  if (!whole || !can.manageBooking(actor, whole.owner)) throw new AppError("not_found", "No such reservation");

  await bookingTransaction(client, wholeBookingLock(whole), async (tx, changes) => {
    const row = await readPartInTransaction(tx, whole.id);
    const state = bookingState(row, nowMs);
    if (state !== "active") {
      throw new AppError("conflict", state === "scheduled" ? "This booking has not started; nothing to keep yet" : `This booking has ${state === "expired" ? "ended" : `been ${state}`}`);
    }
    const policy = await readIdlePolicy(tx);
    if (row.idleKeepsUsed >= policy.idleKeepsPerBooking) {
      const allowed = policy.idleKeepsPerBooking;
      throw new AppError("conflict", `This booking has been kept ${allowed === 1 ? "once" : `${allowed} times`}, the most the policy allows; use its GPUs or extend it`);
    }
    await restartIdleClock(tx, whole.partIds, now, row.idleKeepsUsed + 1);
    await writeAudit(tx, {
      actorId: actor.id,
      action: "reservation.keep",
      entityType: "reservation",
      entityId: whole.id,
      before: { idleKeepsUsed: row.idleKeepsUsed, idleClockAt: row.idleClockAt?.toISOString() ?? null },
      after: { idleKeepsUsed: row.idleKeepsUsed + 1, idleClockAt: now.toISOString() },
      at: now,
    });
    // Announced by the transaction, once: the live feed shows the idle clock again.
    changes.record({ kind: "kept", bookingId: whole.id, partIds: whole.partIds, by: actor });
  });

  return getBookingView(client, id, nowMs, actor.id);
}
