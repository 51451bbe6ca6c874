import { formatDurationMinutes } from "@/lib/domain/booking-window";
import type { BookingChange } from "@/lib/domain/booking-schema";
import { bookingState } from "@/lib/domain/booking-state";
import type { BookingView } from "@/lib/domain/booking-types";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import type { Actor, ServiceOptions } from "@/server/access/actor";
import { writeAudit } from "@/server/access/audit-log";
import { BookingConflictError, describeConflict } from "@/server/bookings/store/booking-conflict";
import { bookingTransaction } from "@/server/bookings/store/booking-transaction";
import { getBookingView } from "@/server/bookings/views/list-bookings";
import { findConflicts } from "@/server/bookings/store/occupancy";
import { readPolicy } from "@/server/bookings/rules/policy";
import { auditParts, findWholeBooking, wholeBookingLock } from "@/server/bookings/commands/whole-booking";
import { readUnitIdsOfParts } from "@/server/bookings/store/booked-units";
import { moveEndOfParts, readBookingToChange, readPartInTransaction } from "@/server/bookings/store/booking-writes";
import { auditBookingName, auditSnapshot } from "@/server/bookings/views/booking-view";
import { checkBookingLimits, effectiveLimits, refuseHost } from "@/server/bookings/rules/check-limits";
import { can } from "@/server/access/permissions";
import { refuseOverPersonCap } from "@/server/bookings/rules/person-cap";

/**
 * Moves the end of a scheduled or active booking. Extending checks the
 * added time like a new booking (other bookings, the length limit, GPUs at
 * once); shortening needs no check. The booker may do both; an admin may
 * shorten anyone's booking, with a reason the booker sees.
 */
export async function changeBookingEnd(
  actor: Actor,
  id: string,
  change: BookingChange,
  options: ServiceOptions = {},
): Promise<BookingView> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  const nowMs = now.getTime();
  const found = await readBookingToChange(client, id);
  if (!found || !can.manageBooking(actor, found)) throw new AppError("not_found", "No such reservation");
  const team = found.teamId ? await client.team.findUnique({ where: { id: found.teamId }, select: { id: true, name: true } }) : null;
  // A booking across nodes moves whole: every part's end, checked and written in one transaction.
  const whole = await findWholeBooking(client, id);
  if (!whole) throw new AppError("not_found", "No such reservation");
  const { partIds: ids, hostIds } = whole;

  await bookingTransaction(client, wholeBookingLock(whole, team ? [team.id] : []), async (tx, changes) => {
    const row = await readPartInTransaction(tx, whole.id);
    const partGpus = await readUnitIdsOfParts(tx, ids);
    const state = bookingState(row, nowMs);
    if (state !== "scheduled" && state !== "active") {
      throw new AppError("conflict", `This booking has ${state === "expired" ? "ended" : `been ${state}`}; make a new one`);
    }
    const oldEndMs = row.endsAt.getTime();
    const newEndMs = change.endsAt !== undefined ? Date.parse(change.endsAt) : oldEndMs + (change.addMinutes ?? 0) * 60_000;
    const field = change.endsAt !== undefined ? "endsAt" : "addMinutes";
    const isBooker = actor.id === row.userId;
    const reason = change.reason?.trim() || null;

    if (newEndMs === oldEndMs) throw new AppError("bad_request", "That is the current end", { [field]: "That is the current end" });
    if (newEndMs <= Math.max(nowMs, row.startsAt.getTime())) {
      const message = state === "active" ? "The new end must be in the future; to stop now, release the booking" : "The new end must be after the start";
      throw new AppError("bad_request", message, { [field]: message });
    }
    const extending = newEndMs > oldEndMs;
    if (!isBooker) {
      if (extending) throw new AppError("forbidden", "Only the booker can extend a booking; an admin can shorten or cancel it");
      if (!can.shortenOthersBooking(actor)) throw new AppError("not_found", "No such reservation");
      if (!reason) throw new AppError("bad_request", "Tell the booker why", { reason: "Tell the booker why you shorten their booking" });
    }

    if (extending) {
      const policy = await readPolicy(tx);
      const totalMinutes = (newEndMs - row.startsAt.getTime()) / 60_000;
      if (totalMinutes > policy.maxDurationMinutes) {
        const message = `A booking lasts at most ${formatDurationMinutes(policy.maxDurationMinutes)} in all`;
        throw new AppError("bad_request", message, { [field]: message });
      }
      const gpuIds = partGpus.map((gpu) => gpu.gpuId);
      const from = new Date(oldEndMs);
      const to = new Date(newEndMs);
      const conflicts = await findConflicts(tx, gpuIds, from, to, id);
      if (conflicts.length > 0) {
        // How far it can go: up to the first booking in the way.
        const latestEndMs = Math.min(...conflicts.map((conflict) => Date.parse(conflict.startsAt)));
        const canExtend = latestEndMs > oldEndMs;
        const bookers = conflicts.map((conflict) => conflict.bookedBy);
        const lines = conflicts.slice(0, 3).map((conflict) => describeConflict(conflict, oldEndMs, bookers));
        const advice = canExtend ? `You can extend until ${new Date(latestEndMs).toISOString()}.` : "It cannot be extended.";
        throw new BookingConflictError(`${lines.join("; ")}. ${advice}`, conflicts, {
          hostName: conflicts[0].hostName,
          nextFreeAt: null,
          freeGpuIndices: [],
          latestEndAt: canExtend ? new Date(latestEndMs).toISOString() : null,
        });
      }
      await refuseOverPersonCap(tx, policy, { userId: row.userId, start: from, end: to, gpus: gpuIds.length, field, excludeId: id });
      // The added time counts against the team's and the person's limits like a new booking of these GPUs.
      const scope = { userId: row.userId, username: found.user.username ?? found.user.name, team };
      // The other parts end where this one does, so none of them overlaps the added time: excluding one id is enough above.
      const limits = await effectiveLimits(tx, scope);
      // Every part's host rule, for a booking across nodes (the quotas count all its GPUs once, below).
      if (ids.length > 1) {
        const hosts = await tx.host.findMany({ where: { id: { in: hostIds } }, select: { name: true } });
        for (const host of hosts) {
          const refusal = refuseHost(limits, host.name, oldEndMs, newEndMs);
          if (refusal) throw refusal;
        }
      }
      await checkBookingLimits(tx, scope, { hostName: found.host.name, startMs: oldEndMs, endMs: newEndMs, gpus: gpuIds.length, gpuIds, totalMinutes }, limits);
    }

    const newEnd = new Date(newEndMs);
    // An extension starts the idle clock again (server/idle-release/).
    await moveEndOfParts(tx, ids, newEnd, extending && state === "active" ? now : null);
    const parts = auditParts(whole);
    const booking = await auditBookingName(tx, id);
    await writeAudit(tx, {
      actorId: actor.id,
      action: extending ? "reservation.extend" : "reservation.shorten",
      entityType: "reservation",
      entityId: whole.id,
      before: auditSnapshot(row, { booking, ...parts }),
      after: auditSnapshot({ ...row, endsAt: newEnd }, { booking, ...(reason ? { reason } : {}), ...parts }),
      at: now,
    });
    changes.record({ kind: "changed", how: extending ? "extended" : "shortened", bookingId: whole.id, partIds: ids, by: actor, before: { startsAt: row.startsAt, endsAt: row.endsAt }, after: { startsAt: row.startsAt, endsAt: newEnd } });
  });

  // Announced by the transaction, once: notifications tell the booker of a change someone else made.
  return getBookingView(client, id, nowMs, actor.id);
}
