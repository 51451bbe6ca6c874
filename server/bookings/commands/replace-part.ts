import type { MultiNodeBookingView } from "@/lib/domain/booking-types";
import { commonModel } from "@/lib/domain/multi-node";
import { PURPOSE_MAX } from "@/lib/domain/booking-schema";
import { bookingState } from "@/lib/domain/booking-state";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import type { Actor } from "@/server/access/actor";
import { writeAudit } from "@/server/access/audit-log";
import { bookingTransaction, type Tx } from "@/server/bookings/store/booking-transaction";
import { candidateHosts, type CreateOptions } from "@/server/bookings/commands/booking-order";
import { liveView } from "@/server/bookings/placement/gpu-in-use";
import { getBookingView } from "@/server/bookings/views/list-bookings";
import { readGroupHostIds } from "@/server/bookings/store/booking-parts";
import { findWholeBooking } from "@/server/bookings/commands/whole-booking";
import { deletePartUnits, insertPartUnits } from "@/server/bookings/store/booked-units";
import { createKeptBooking, movePartToHost, readPartToMove } from "@/server/bookings/store/booking-writes";
import { multiNodeSummary } from "@/lib/domain/multi-node";
import { placeUnits } from "@/server/bookings/placement/place-units";
import { readPolicy } from "@/server/bookings/rules/policy";
import { findSpareNode } from "@/server/bookings/placement/spare-node";
import { effectiveLimits, refuseHost } from "@/server/bookings/rules/check-limits";
import { bookingTeam } from "@/server/bookings/rules/booking-team";
import { can } from "@/server/access/permissions";

/**
 * Moves one node of a booking across nodes to another host (the spare
 * gpudesk offers when none is named), from now to the booking's end: the
 * part keeps its id and rank, its GPUs become free GPUs of the same number
 * and model on the new host, in one transaction that holds both hosts. The
 * booking's launch lines then follow the new host (a new rendezvous host
 * when node 0 moved). For the node whose host failed: the GPUs it leaves
 * are handed back at once, and what it held there until the move stays
 * booked (keepHeldTime), so a move changes no GPU-hour that was used.
 */
export async function replacePart(actor: Actor, partId: string, hostName: string | undefined, options: CreateOptions = {}): Promise<MultiNodeBookingView> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  const whole = await findWholeBooking(client, partId);
  const part = whole?.owner;
  if (!whole || !part || !can.manageBooking(actor, part)) throw new AppError("not_found", "No such reservation");
  if (!part.groupId) throw new AppError("bad_request", "Only a node of a booking across nodes can be moved to a spare; book another GPU instead");
  const target = hostName ?? (await findSpareNode(partId, now, { client, fleet: options.fleet }))?.hostName;
  if (!target) throw new AppError("conflict", "No spare node of the same model is free for the rest of the booking");
  const [host] = await candidateHosts(client, target);
  const team = part.teamId ? await bookingTeam(client, part.userId, part.teamId) : null;
  const live = liveView(options.fleet);

  // Every check reads inside the transaction: the booker's row (locked first) queues every move of the booking's nodes.
  await bookingTransaction(client, { userId: part.userId, hostIds: [part.hostId, host.id], teamIds: team ? [team.id] : [] }, async (tx, changes) => {
    const row = await readPartToMove(tx, partId);
    // Another move of this node came first: its old host is not the one this transaction locked.
    if (row.hostId !== part.hostId) throw new AppError("conflict", `Node ${(row.nodeRank ?? 0) + 1} of this booking was just moved to ${row.host.name}`);
    const siblings = await readGroupHostIds(tx, part.groupId as string);
    if (siblings.includes(host.id)) throw new AppError("bad_request", `${host.name} already holds a node of this booking`, { host: `${host.name} already holds a node of this booking` });
    const state = bookingState(row, now.getTime());
    if (state !== "scheduled" && state !== "active") throw new AppError("conflict", `This booking has ${state === "expired" ? "ended" : `been ${state}`}`);
    const window = { startMs: Math.max(now.getTime(), row.startsAt.getTime()), endMs: row.endsAt.getTime(), nowMs: now.getTime() };
    const limits = await effectiveLimits(tx, { userId: part.userId, username: actor.username, team });
    const refusal = refuseHost(limits, host.name, window.startMs, window.endMs);
    if (refusal) throw refusal;
    const model = commonModel(row.gpus.map(({ gpu }) => gpu.name)) ?? undefined;
    const [picked] = (await placeUnits(tx, { kind: "any-gpus", count: row.gpus.length, model }, [host], live, window, await readPolicy(tx))).parts;
    const kept = await keepHeldTime(tx, { partId, userId: part.userId, teamId: part.teamId, hostId: row.hostId, row, movedToHost: host.name }, window.startMs);
    await movePartToHost(tx, partId, host.id, now);
    await insertPartUnits(tx, picked.gpus.map((gpu) => ({ reservationId: partId, gpuId: gpu.id, startsAt: new Date(window.startMs), endsAt: row.endsAt })));
    await writeAudit(tx, {
      actorId: actor.id,
      action: "reservation.replace_part",
      entityType: "reservation",
      entityId: whole.id,
      before: { part: partId, host: row.host.name, gpus: row.gpus.map(({ gpu }) => gpu.index) },
      after: { part: partId, host: host.name, gpus: picked.gpus.map((gpu) => gpu.index), from: new Date(window.startMs).toISOString(), ...(kept ? { heldBefore: kept } : {}) },
      at: now,
    });
    changes.record({ kind: "part-replaced", bookingId: whole.id, partIds: whole.partIds, by: actor, partId, fromHostId: row.hostId, toHostId: host.id });
  });

  const views = [];
  for (const id of whole.partIds) views.push(await getBookingView(client, id, now.getTime(), actor.id));
  return multiNodeSummary(views);
}

interface HeldPart {
  partId: string;
  userId: string;
  teamId: string | null;
  hostId: string;
  movedToHost: string;
  row: { purpose: string; nodeRank: number | null; nodeCount: number | null; host: { name: string }; gpus: { gpuId: string; startsAt: Date; endsAt: Date }[] };
}

/**
 * Ends the part's hold on its old host at the move (`moveMs`) and keeps
 * what was held before it: the GPUs it held there until the move become a
 * booking of their own on the old host, ended at the move, of the same
 * person and team. Usage, the limits (GPU-hours per 7 days) and the rollups
 * count those hours as every other booking's, and the part itself holds
 * only its new host's GPUs from the move, so every view and launch line of
 * the part reads its own host's units, as before. Nothing is kept for a
 * part that had not started. Returns the kept booking's id.
 */
async function keepHeldTime(tx: Tx, held: HeldPart, moveMs: number): Promise<string | null> {
  const before = held.row.gpus.filter((unit) => unit.startsAt.getTime() < moveMs);
  await deletePartUnits(tx, held.partId);
  if (before.length === 0) return null;
  const node = `node ${(held.row.nodeRank ?? 0) + 1}${held.row.nodeCount ? ` of ${held.row.nodeCount}` : ""}`;
  const note = ` (${node} on ${held.row.host.name} until moved to ${held.movedToHost})`;
  const keptId = await createKeptBooking(tx, {
    userId: held.userId,
    hostId: held.hostId,
    teamId: held.teamId,
    purpose: `${held.row.purpose.slice(0, Math.max(1, PURPOSE_MAX - note.length))}${note}`.slice(0, PURPOSE_MAX),
    startsAt: new Date(Math.min(...before.map((unit) => unit.startsAt.getTime()))),
    endsAt: new Date(moveMs),
  });
  await insertPartUnits(
    tx,
    before.map((unit) => ({ reservationId: keptId, gpuId: unit.gpuId, startsAt: unit.startsAt, endsAt: new Date(Math.min(unit.endsAt.getTime(), moveMs)) })),
  );
  return keptId;
}
