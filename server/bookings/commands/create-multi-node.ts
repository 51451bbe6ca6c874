import type { MultiNodeRequest } from "@/lib/domain/reservation-schema";
import type { MultiNodeBookingView } from "@/lib/domain/reservation-types";
import { unitName, storedUnit } from "@/lib/domain/gpu-availability";
import { db } from "@/server/core/db";
import type { Actor } from "@/server/access/actor";
import { writeAudit } from "@/server/access/audit-log";
import { bookingTransaction, type Tx } from "@/server/bookings/store/booking-transaction";
import type { HostRef, Window } from "@/server/bookings/placement/booking-candidates";
import { type ChosenPart, fabricsOf, fabricWarnings } from "@/server/bookings/placement/place-nodes";
import { candidateHosts, checkedWindow, checkPolicyTimes, type CreateOptions } from "@/server/bookings/commands/create-booking";
import { placeUnits } from "@/server/bookings/placement/place-units";
import { findBusyGpus, GpuInUseError, type LiveView, liveView, refuseOfflineHost, STARTS_NOW_MS } from "@/server/bookings/placement/gpu-in-use";
import { type PolicyValues, readPolicy } from "@/server/bookings/rules/policy";
import { getReservationView } from "@/server/bookings/views/list-bookings";
import { multiNodeSummary } from "@/lib/domain/multi-node";
import { checkBookingLimits, type EffectiveLimits, effectiveLimits, refuseHost } from "@/server/bookings/rules/check-limits";
import { bookingTeam } from "@/server/bookings/rules/booking-team";
import { refuseOverPersonCap } from "@/server/bookings/rules/person-cap";

/**
 * Books GPUs on several hosts as one booking: any `nodes` hosts with
 * `gpusPerNode` free GPUs each, or the parts named. Each part is an
 * ordinary booking of its host (so overlap, reconciliation, proofs and
 * limits keep working per part), tied to the others by the node-0 part's
 * id. Every check runs for every part before the first row is written, in
 * one transaction that holds every candidate host's lock: all parts or none.
 */
export async function createMultiNodeBooking(actor: Actor, request: MultiNodeRequest, options: CreateOptions = {}): Promise<MultiNodeBookingView> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  const { window, endField } = checkedWindow(request, now);
  const named = request.parts ? await Promise.all(request.parts.map(async (part) => ({ host: (await candidateHosts(client, part.host))[0], gpus: part.gpus }))) : null;
  const hosts = named ? named.map((part) => part.host) : await candidateHosts(client, undefined);
  const team = await bookingTeam(client, actor.id, request.team);
  const scope = { userId: actor.id, username: actor.username, team };
  const live = liveView(options.fleet);
  let explanation: string | undefined;
  let warnings: string[] = [];

  const lock = { userId: actor.id, hostIds: hosts.map((host) => host.id), teamIds: team ? [team.id] : [] };
  const groupId = await bookingTransaction(client, lock, async (tx, changes) => {
    const policy = await readPolicy(tx);
    checkPolicyTimes(policy, window, endField);
    const limits = await effectiveLimits(tx, scope);
    let parts: ChosenPart[];
    if (named) {
      parts = [];
      for (const part of named) parts.push(await pickNamedPart(tx, actor, part, request.model, limits, live, window, policy));
      // Named across fabrics is allowed: the booker may know better, and hears what it costs.
      warnings = fabricWarnings(parts, await fabricsOf(tx, parts.map((part) => part.host.id)));
    } else {
      const picked = await placeUnits(tx, { kind: "any-nodes", nodes: request.nodes as number, gpusPerNode: request.gpusPerNode as number, model: request.model, limits }, hosts, live, window, policy);
      parts = picked.parts;
      explanation = picked.explanation;
      warnings = picked.warnings;
    }

    const total = parts.reduce((sum, part) => sum + part.gpus.length, 0);
    const start = new Date(window.startMs);
    const end = new Date(window.endMs);
    await refuseOverPersonCap(tx, policy, { userId: actor.id, start, end, gpus: total, field: named ? "parts" : "gpusPerNode" });
    // Every GPU of every part counts against the limits, as one booking (the host rule was checked per part above).
    const allIds = parts.flatMap((part) => part.gpus.map((gpu) => gpu.id));
    const minutes = (window.endMs - window.startMs) / 60_000;
    await checkBookingLimits(tx, scope, { hostName: parts[0].host.name, startMs: window.startMs, endMs: window.endMs, gpus: total, gpuIds: allIds, totalMinutes: minutes }, limits);

    // All checks passed for all parts: only now write (see bookingTransaction).
    await options.claim?.before(tx);
    const ids: string[] = [];
    for (const [rank, part] of parts.entries()) {
      const created = await tx.reservation.create({
        data: {
          userId: actor.id,
          hostId: part.host.id,
          startsAt: start,
          endsAt: end,
          purpose: request.purpose,
          status: "booked",
          teamId: team?.id ?? null,
          createdAt: now,
          groupId: ids[0] ?? null,
          nodeRank: rank,
          nodeCount: parts.length,
          gpus: { create: part.gpus.map((gpu) => ({ gpuId: gpu.id, startsAt: start, endsAt: end })) },
        },
        select: { id: true },
      });
      ids.push(created.id);
    }
    await tx.reservation.update({ where: { id: ids[0] }, data: { groupId: ids[0] } });
    await writeAudit(tx, {
      actorId: actor.id,
      action: "reservation.create",
      entityType: "reservation",
      entityId: ids[0],
      after: await auditOfParts(tx, parts, ids, { ...(warnings.length > 0 ? { warnings } : {}), startsAt: start.toISOString(), endsAt: end.toISOString(), purpose: request.purpose, status: "booked", ...(team ? { team: team.name } : {}) }),
      at: now,
    });
    await options.claim?.after(tx, ids[0]);
    changes.record({ kind: "created", bookingId: ids[0] });
    return ids[0];
  });

  const partIds = await client.reservation.findMany({ where: { groupId }, orderBy: { nodeRank: "asc" }, select: { id: true } });
  const views = [];
  for (const part of partIds) views.push(await getReservationView(client, part.id, now.getTime(), actor.id));
  return { ...multiNodeSummary(views), warnings, ...(explanation ? { explanation } : {}) };
}

/** The audit entry of the whole booking: one entry, each part by host, rank and unit names. */
async function auditOfParts(tx: Tx, parts: ChosenPart[], ids: string[], common: Record<string, unknown>) {
  const rows = await tx.gpu.findMany({
    where: { id: { in: parts.flatMap((part) => part.gpus.map((gpu) => gpu.id)) } },
    select: { id: true, index: true, migDeviceIndex: true, migProfile: true },
  });
  const unitOf = new Map(rows.map((row) => [row.id, storedUnit(row)]));
  return {
    ...common,
    nodes: parts.length,
    parts: parts.map((part, rank) => ({
      reservationId: ids[rank],
      nodeRank: rank,
      host: part.host.name,
      gpus: part.gpus.map((gpu) => ({ index: gpu.index, uuid: gpu.uuid, unit: unitName(unitOf.get(gpu.id) ?? { index: gpu.index }) })),
    })),
  };
}

async function pickNamedPart(
  tx: Tx,
  actor: Actor,
  part: { host: HostRef; gpus: number | number[] },
  model: string | undefined,
  limits: EffectiveLimits,
  live: LiveView | null,
  window: Window,
  policy: PolicyValues,
): Promise<ChosenPart> {
  const refusal = refuseHost(limits, part.host.name, window.startMs, window.endMs);
  if (refusal) throw refusal;
  if (typeof part.gpus === "number") {
    const picked = await placeUnits(tx, { kind: "any-gpus", count: part.gpus, model }, [part.host], live, window, policy);
    return picked.parts[0];
  }
  const chosen = (await placeUnits(tx, { kind: "named-gpus", gpus: part.gpus }, [part.host], live, window, policy)).parts[0];
  // Someone else's job on a named GPU from now on would become an intruder: a part is never booked over running work.
  if (live && window.startMs <= window.nowMs + STARTS_NOW_MS) {
    const busy = findBusyGpus(chosen.gpus, chosen.host.name, live, actor.id);
    if (busy.length > 0) refuseOfflineHost(live, chosen.host);
    if (busy.length > 0) throw new GpuInUseError(busy);
  }
  return chosen;
}
