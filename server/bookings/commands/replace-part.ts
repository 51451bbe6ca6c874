import type { MultiNodeBookingView } from "@/lib/domain/reservation-types";
import { commonModel } from "@/lib/domain/multi-node";
import { reservationState } from "@/lib/domain/reservation-state";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { type Actor, canManageReservation } from "@/server/access/actor";
import { writeAudit } from "@/server/access/audit-log";
import { announceBookingsChanged } from "@/server/bookings/store/booking-events";
import { bookingTransaction } from "@/server/bookings/store/booking-transaction";
import { candidateHosts, type CreateOptions, liveView } from "@/server/bookings/commands/create-booking";
import { getReservationView } from "@/server/bookings/views/list-bookings";
import { partIdsOf } from "@/server/bookings/views/multi-node-view";
import { multiNodeSummary } from "@/lib/domain/multi-node";
import { pickAnyGpus } from "@/server/bookings/placement/pick-any-gpus";
import { readPolicy } from "@/server/bookings/rules/policy";
import { findSpareNode } from "@/server/bookings/commands/spare-node";
import { effectiveLimits, refuseHost } from "@/server/bookings/rules/check-limits";
import { bookingTeam } from "@/server/bookings/rules/booking-team";

/**
 * Moves one node of a booking across nodes to another host (the spare
 * gpudesk offers when none is named), from now to the booking's end: the
 * part keeps its id and rank, its GPUs become free GPUs of the same number
 * and model on the new host, in one transaction that holds both hosts. The
 * booking's launch lines then follow the new host (a new rendezvous host
 * when node 0 moved). For the node whose host failed: the GPUs it leaves
 * are handed back at once.
 */
export async function replacePart(actor: Actor, partId: string, hostName: string | undefined, options: CreateOptions = {}): Promise<MultiNodeBookingView> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  const part = await client.reservation.findUnique({
    where: { id: partId },
    select: { userId: true, hostId: true, groupId: true, teamId: true, startsAt: true, endsAt: true, status: true, gpus: { select: { gpu: { select: { name: true } } } } },
  });
  if (!part || !canManageReservation(actor, part)) throw new AppError("not_found", "No such reservation");
  if (!part.groupId) throw new AppError("bad_request", "Only a node of a booking across nodes can be moved to a spare; book another GPU instead");
  const target = hostName ?? (await findSpareNode(partId, now, { client, fleet: options.fleet }))?.hostName;
  if (!target) throw new AppError("conflict", "No spare node of the same model is free for the rest of the booking");
  const [host] = await candidateHosts(client, target);
  const ids = await partIdsOf(client, partId);
  const siblings = await client.reservation.findMany({ where: { id: { in: ids } }, select: { hostId: true } });
  if (siblings.some((sibling) => sibling.hostId === host.id)) throw new AppError("bad_request", `${host.name} already holds a node of this booking`, { host: `${host.name} already holds a node of this booking` });
  const team = part.teamId ? await bookingTeam(client, part.userId, part.teamId) : null;
  const live = liveView(options.fleet);

  await bookingTransaction(client, { userId: part.userId, hostIds: [part.hostId, host.id], teamIds: team ? [team.id] : [] }, async (tx, changes) => {
    const row = await tx.reservation.findUniqueOrThrow({ where: { id: partId }, select: { startsAt: true, endsAt: true, status: true, hostId: true, host: { select: { name: true } }, gpus: { select: { gpuId: true, gpu: { select: { index: true } } } } } });
    const state = reservationState(row, now.getTime());
    if (state !== "scheduled" && state !== "active") throw new AppError("conflict", `This booking has ${state === "expired" ? "ended" : `been ${state}`}`);
    const window = { startMs: Math.max(now.getTime(), row.startsAt.getTime()), endMs: row.endsAt.getTime(), nowMs: now.getTime() };
    const limits = await effectiveLimits(tx, { userId: part.userId, username: actor.username, team });
    const refusal = refuseHost(limits, host.name, window.startMs, window.endMs);
    if (refusal) throw refusal;
    const model = commonModel(part.gpus.map(({ gpu }) => gpu.name)) ?? undefined;
    const picked = await pickAnyGpus(tx, [host], { count: row.gpus.length, model }, live, window, await readPolicy(tx));
    // The failed node's GPUs are given back whole (their time before now included: the part now lives on the new host).
    await tx.reservationGpu.deleteMany({ where: { reservationId: partId } });
    await tx.reservation.update({ where: { id: partId }, data: { hostId: host.id, idleClockAt: now, idleWarnedAt: null } });
    await tx.reservationGpu.createMany({ data: picked.gpus.map((gpu) => ({ reservationId: partId, gpuId: gpu.id, startsAt: new Date(window.startMs), endsAt: row.endsAt })) });
    await writeAudit(tx, {
      actorId: actor.id,
      action: "reservation.replace_part",
      entityType: "reservation",
      entityId: ids[0],
      before: { part: partId, host: row.host.name, gpus: row.gpus.map(({ gpu }) => gpu.index) },
      after: { part: partId, host: host.name, gpus: picked.gpus.map((gpu) => gpu.index), from: new Date(window.startMs).toISOString() },
      at: now,
    });
    changes.record({ kind: "part-replaced", bookingId: ids[0], partId, fromHostId: row.hostId, toHostId: host.id });
  });

  announceBookingsChanged();
  const views = [];
  for (const id of ids) views.push(await getReservationView(client, id, now.getTime(), actor.id));
  return multiNodeSummary(views);
}
