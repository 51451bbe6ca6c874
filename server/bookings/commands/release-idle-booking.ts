import type { PrismaClient } from "@prisma/client";
import { bookingState } from "@/lib/domain/booking-state";
import { db } from "@/server/core/db";
import { idleStanding, readIdleExemptions, type IdleStanding } from "@/server/bookings/rules/idle-state";
import { writeAudit } from "@/server/access/audit-log";
import { bookingTransaction } from "@/server/bookings/store/booking-transaction";
import { readIdlePolicy } from "@/server/bookings/rules/policy";
import { auditParts, findWholeBooking, wholeBookingLock } from "@/server/bookings/commands/whole-booking";
import { endParts } from "@/server/bookings/store/booking-writes";
import { readPartsToRelease } from "@/server/bookings/store/idle-columns";
import { wholeBookingStanding } from "@/server/bookings/rules/whole-booking";
import { auditBookingName, auditSnapshot } from "@/server/bookings/views/booking-view";

export type IdleReleaseOutcome =
  | { kind: "released"; standing: IdleStanding; scheduledEndAt: Date }
  | { kind: "reported"; standing: IdleStanding; scheduledEndAt: Date }
  | { kind: "skipped"; why: "not active" | "not due" | "already reported" };

export interface ReleaseIdleOptions {
  client?: PrismaClient;
  now?: Date;
  /** A GPU of the booking is busy in readings not stored yet: never released then. */
  busyNow?: boolean;
}

/**
 * Releases one idle booking, in one transaction that takes the booking
 * lock (the one every extend, keep and manual release takes) and asks the
 * rule again from what is stored: a booking extended, kept, released or
 * used since the decision is left as it is. In report-only mode it records
 * what would have been released, once per idle run, and changes nothing.
 * Nothing is killed: a process that still holds a GPU goes on, unbooked.
 */
export async function releaseIdleBooking(id: string, options: ReleaseIdleOptions = {}): Promise<IdleReleaseOutcome> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  const nowMs = now.getTime();
  // A booking across nodes is released whole, and only when every part is due.
  const whole = await findWholeBooking(client, id);
  if (!whole) return { kind: "skipped", why: "not active" };
  const ids = whole.partIds;

  const outcome = await bookingTransaction(client, wholeBookingLock(whole), async (tx, changes): Promise<IdleReleaseOutcome> => {
    const rows = await readPartsToRelease(tx, ids);
    if (rows.length !== ids.length || rows.some((row) => bookingState(row, nowMs) !== "active")) return { kind: "skipped", why: "not active" };
    const policy = await readIdlePolicy(tx);
    const exemptions = await readIdleExemptions(tx);
    const standings: IdleStanding[] = [];
    for (const row of rows) standings.push(await idleStanding(tx, row, policy, exemptions, nowMs, { busyNow: options.busyNow }));
    const standing = standings.length === 1 ? standings[0] : { ...wholeBookingStanding(standings), reservationId: whole.id };
    if (standing.phase !== "due" || standing.idleSinceMs === null) return { kind: "skipped", why: "not due" };
    const idleSince = new Date(standing.idleSinceMs);
    const row = rows.find((entry) => entry.id === whole.id) ?? rows[0];
    const records = rows.map((part) => ({ reservationId: part.id, userId: part.userId, hostId: part.hostId, gpuCount: part.gpus.length, idleSince, at: now, scheduledEndAt: part.endsAt }));
    if (policy.idleReportOnly) {
      const seen = await tx.idleRelease.findUnique({ where: { reservationId_idleSince: { reservationId: whole.id, idleSince } }, select: { id: true } });
      if (seen) return { kind: "skipped", why: "already reported" };
      await tx.idleRelease.createMany({ data: records.map((record) => ({ ...record, reportOnly: true })) });
      return { kind: "reported", standing, scheduledEndAt: row.endsAt };
    }
    await endParts(tx, ids, now, { status: "released", releasedBecause: "idle" });
    // Reported in report-only mode before release was switched on: the release replaces that record (one per idle run).
    await tx.idleRelease.deleteMany({ where: { reservationId: { in: ids }, idleSince, reportOnly: true } });
    await tx.idleRelease.createMany({ data: records });
    const booking = await auditBookingName(tx, id);
    await writeAudit(tx, {
      actorId: null,
      action: "reservation.idle_release",
      entityType: "reservation",
      entityId: whole.id,
      before: auditSnapshot(row, { booking, ...auditParts(whole) }),
      after: auditSnapshot(
        { ...row, endsAt: now, status: "released" },
        { booking, releasedBecause: "idle", idleSince: idleSince.toISOString(), idleMinutes: standing.idleMinutes, ...auditParts(whole) },
      ),
      at: now,
    });
    changes.record({ kind: "ended", how: "idle-released", bookingId: whole.id, partIds: ids, by: null, before: { startsAt: row.startsAt, endsAt: row.endsAt }, after: { startsAt: row.startsAt, endsAt: now } });
    return { kind: "released", standing, scheduledEndAt: row.endsAt };
  });

  // Announced by the transaction (a recorded end): the waitlist runner listens, and a request waiting for these GPUs is served at once.
  return outcome;
}
