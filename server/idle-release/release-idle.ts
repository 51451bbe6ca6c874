import type { PrismaClient } from "@prisma/client";
import { reservationState } from "@/lib/reservation-state";
import { db } from "@/server/core/db";
import { idleBookingSelect, idleStanding, readIdleExemptions, type IdleStanding } from "@/server/reservations/idle-state";
import { writeAudit } from "@/server/core/audit-log";
import { announceBookingsChanged } from "@/server/core/booking-events";
import { bookingTransaction } from "@/server/core/booking-transaction";
import { readIdlePolicy } from "@/server/reservations/policy";
import { auditBookingName, auditSnapshot } from "@/server/reservations/reservation-view";

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
  const found = await client.reservation.findUnique({ where: { id }, select: { userId: true, hostId: true } });
  if (!found) return { kind: "skipped", why: "not active" };

  const outcome = await bookingTransaction(client, { userId: found.userId, hostIds: [found.hostId] }, async (tx): Promise<IdleReleaseOutcome> => {
    const row = await tx.reservation.findUniqueOrThrow({ where: { id }, select: { ...idleBookingSelect, status: true, purpose: true } });
    if (reservationState(row, nowMs) !== "active") return { kind: "skipped", why: "not active" };
    const policy = await readIdlePolicy(tx);
    const standing = await idleStanding(tx, row, policy, await readIdleExemptions(tx), nowMs, { busyNow: options.busyNow });
    if (standing.phase !== "due" || standing.idleSinceMs === null) return { kind: "skipped", why: "not due" };
    const idleSince = new Date(standing.idleSinceMs);
    const record = { reservationId: id, userId: row.userId, hostId: row.hostId, gpuCount: row.gpus.length, idleSince, at: now, scheduledEndAt: row.endsAt };
    if (policy.idleReportOnly) {
      const seen = await tx.idleRelease.findUnique({ where: { reservationId_idleSince: { reservationId: id, idleSince } }, select: { id: true } });
      if (seen) return { kind: "skipped", why: "already reported" };
      await tx.idleRelease.create({ data: { ...record, reportOnly: true } });
      return { kind: "reported", standing, scheduledEndAt: row.endsAt };
    }
    await tx.reservation.update({ where: { id }, data: { status: "released", endsAt: now, releasedBecause: "idle" } });
    await tx.reservationGpu.updateMany({ where: { reservationId: id }, data: { endsAt: now } });
    await tx.idleRelease.create({ data: record });
    const booking = await auditBookingName(tx, id);
    await writeAudit(tx, {
      actorId: null,
      action: "reservation.idle_release",
      entityType: "reservation",
      entityId: id,
      before: auditSnapshot(row, { booking }),
      after: auditSnapshot({ ...row, endsAt: now, status: "released" }, { booking, releasedBecause: "idle", idleSince: idleSince.toISOString(), idleMinutes: standing.idleMinutes }),
      at: now,
    });
    return { kind: "released", standing, scheduledEndAt: row.endsAt };
  });

  // The waitlist runner listens: a request waiting for these GPUs is served at once.
  if (outcome.kind === "released") announceBookingsChanged();
  return outcome;
}
