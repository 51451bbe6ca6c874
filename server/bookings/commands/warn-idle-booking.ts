import type { PrismaClient } from "@prisma/client";
import { db } from "@/server/core/db";
import { bookingTransaction } from "@/server/bookings/store/booking-transaction";
import { findWholeBooking, wholeBookingLock } from "@/server/bookings/commands/whole-booking";
import { claimIdleWarning } from "@/server/bookings/store/idle-columns";

/**
 * Idle release's warning, as a change of the booking: claims it (one
 * instance, one pass, one warning per idle run: the claim on `idleWarnedAt`
 * is durable, so a restart or a new leader does not warn twice) for the
 * whole booking, under the booking lock that keep, extend and release take,
 * and records `idle-warned`, announced once after the commit (the live
 * bookings carry the warning). True when this call won the claim: its
 * caller then tells the booker. Not audited (nor was it before: the notice
 * is the record).
 */
export async function warnIdleBooking(id: string, idleSince: Date, options: { client?: PrismaClient; now?: Date } = {}): Promise<boolean> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  const whole = await findWholeBooking(client, id);
  if (!whole) return false;
  return bookingTransaction(client, wholeBookingLock(whole), async (tx, changes) => {
    const won = await claimIdleWarning(tx, whole.id, whole.partIds, idleSince, now);
    if (won) changes.record({ kind: "idle-warned", bookingId: whole.id, partIds: whole.partIds, by: null, idleSince, at: now });
    return won;
  });
}
