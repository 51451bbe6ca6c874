import { storedUnit, unitName } from "@/lib/domain/gpu-availability";
import { db } from "@/server/core/db";
import type { Actor } from "@/server/access/actor";
import { writeAudit } from "@/server/access/audit-log";
import { checkPolicyTimes, type BookingOrder, type CreateOptions, type PartsWanted } from "@/server/bookings/commands/booking-order";
import type { Window } from "@/server/bookings/placement/booking-candidates";
import { busyGpusForAudit, findBusyGpus, GpuInUseError, type LiveView, liveView, refuseOfflineHost, STARTS_NOW_MS } from "@/server/bookings/placement/gpu-in-use";
import { type ChosenPart, fabricsOf, fabricWarnings } from "@/server/bookings/placement/place-nodes";
import { placeUnits, type UnitsRequest } from "@/server/bookings/placement/place-units";
import { bookingTeam } from "@/server/bookings/rules/booking-team";
import { checkBookingLimits, type EffectiveLimits, effectiveLimits, refuseHost } from "@/server/bookings/rules/check-limits";
import { refuseOverPersonCap } from "@/server/bookings/rules/person-cap";
import { type PolicyValues, readPolicy } from "@/server/bookings/rules/policy";
import { bookingTransaction, type Tx } from "@/server/bookings/store/booking-transaction";
import { insertBooking } from "@/server/bookings/store/insert-booking";

/** What book() made: the booking's id (its node-0 part's), every part's id in rank order, and why gpudesk placed it there. */
export interface Booked {
  id: string;
  partIds: string[];
  explanation?: string;
  warnings: string[];
}

/** Where book() placed a booking's parts, and what the placement said about it. */
interface Placement {
  parts: ChosenPart[];
  explanation?: string;
  warnings: string[];
  /** Someone else's running work on named units, booked over on purpose (one host only). */
  overRunningWork: ReturnType<typeof findBusyGpus>;
}

interface PlaceContext {
  actor: Actor;
  policy: PolicyValues;
  limits: EffectiveLimits;
  live: LiveView | null;
  window: Window;
  allowBusy: boolean;
}

/**
 * The one way a booking is made, whatever its shape: a one-host booking is
 * a booking with one part, a booking across nodes one with a part per node,
 * and each occurrence of a weekly series one such booking. The steps, in
 * one write transaction that holds every candidate host's lock (all parts
 * or none; two requests for the same unit and time never both succeed):
 *
 *  1. the policy's times (rules/policy.ts)
 *  2. the team's and the person's limits, and which hosts they allow (rules/check-limits.ts)
 *  3. placement of every part (placement/place-units.ts) and, for units named
 *     from now on, someone else's running work on them (placement/gpu-in-use.ts)
 *  4. the person's GPUs at once, every part together (rules/person-cap.ts)
 *  5. the GPU-hour and at-once quotas, every part's GPUs as one booking (rules/check-limits.ts)
 *  6. the caller's claim (the waitlist's entry), then the write (store/insert-booking.ts)
 *  7. one audit entry for the whole booking, and one recorded "created" change:
 *     the booking backends' beforeCommit/afterCommit and the one announcement
 *     follow from it in store/booking-transaction.ts
 *
 * Every check throws before the first write (see bookingTransaction).
 */
export async function book(actor: Actor, order: BookingOrder, options: CreateOptions = {}): Promise<Booked> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  const { window } = order;
  const team = await bookingTeam(client, actor.id, order.team);
  const scope = { userId: actor.id, username: actor.username, team };
  const live = liveView(options.fleet);
  let placed: Placement | undefined;

  const lock = { userId: actor.id, hostIds: candidateHostIds(order.where), teamIds: team ? [team.id] : [] };
  const partIds = await bookingTransaction(client, lock, async (tx, changes) => {
    const policy = await readPolicy(tx);
    checkPolicyTimes(policy, window, order.endField);
    const limits = await effectiveLimits(tx, scope);
    const placement = await placeParts(tx, order.where, { actor, policy, limits, live, window, allowBusy: order.allowBusy });
    placed = placement;
    const { parts } = placement;

    const start = new Date(window.startMs);
    const end = new Date(window.endMs);
    const gpuIds = parts.flatMap((part) => part.gpus.map((gpu) => gpu.id));
    await refuseOverPersonCap(tx, policy, { userId: actor.id, start, end, gpus: gpuIds.length, field: order.capField });
    // Every GPU of every part counts against the limits as one booking (each part's host rule was checked at placement).
    const totalMinutes = (window.endMs - window.startMs) / 60_000;
    await checkBookingLimits(tx, scope, { hostName: parts[0].host.name, startMs: window.startMs, endMs: window.endMs, gpus: gpuIds.length, gpuIds, totalMinutes }, limits);

    // All checks passed for every part: only now write. A claim that fails here still comes before any write.
    await options.claim?.before(tx);
    const ids = await insertBooking(tx, {
      userId: actor.id,
      teamId: team?.id ?? null,
      purpose: order.purpose,
      startsAt: start,
      endsAt: end,
      createdAt: now,
      parts: parts.map((part) => ({ hostId: part.host.id, gpuIds: part.gpus.map((gpu) => gpu.id) })),
    });
    const common = { startsAt: start.toISOString(), endsAt: end.toISOString(), purpose: order.purpose, status: "booked", ...(team ? { team: team.name } : {}) };
    await writeAudit(tx, { actorId: actor.id, action: "reservation.create", entityType: "reservation", entityId: ids[0], after: await auditOfBooking(tx, placement, ids, common), at: now });
    await options.claim?.after(tx, ids[0]);
    changes.record({ kind: "created", bookingId: ids[0], partIds: ids, by: actor, after: { startsAt: start, endsAt: end } });
    return ids;
  });

  const { explanation, warnings } = placed as Placement;
  return { id: partIds[0], partIds, warnings, ...(explanation ? { explanation } : {}) };
}

/** The hosts a booking may land on: their rows are locked before the transaction reads anything. */
function candidateHostIds(where: PartsWanted): string[] {
  return (where.kind === "named-nodes" ? where.parts.map((part) => part.host) : where.hosts).map((host) => host.id);
}

/** Places every part of the booking (placeUnits), each on a host the limits allow. */
async function placeParts(tx: Tx, where: PartsWanted, context: PlaceContext): Promise<Placement> {
  const { policy, limits, live, window } = context;
  switch (where.kind) {
    case "one-host": {
      const refusals = where.hosts.map((host) => refuseHost(limits, host.name, window.startMs, window.endMs));
      const allowed = where.hosts.filter((_, i) => refusals[i] === null);
      if (allowed.length === 0) throw refusals[0];
      // Named units on the named host; "any" units on any host the limits allow.
      const plan = await placeUnits(tx, where.units, isNamed(where.units) ? where.hosts : allowed, live, window, policy);
      const overRunningWork = isNamed(where.units) ? refuseRunningWork(plan.parts[0], context) : [];
      return { ...plan, overRunningWork };
    }
    case "any-nodes": {
      const plan = await placeUnits(tx, { kind: "any-nodes", nodes: where.nodes, gpusPerNode: where.gpusPerNode, model: where.model, limits }, where.hosts, live, window, policy);
      return { ...plan, overRunningWork: [] };
    }
    case "named-nodes": {
      const parts: ChosenPart[] = [];
      const overRunningWork: Placement["overRunningWork"] = [];
      for (const wanted of where.parts) {
        const refusal = refuseHost(limits, wanted.host.name, window.startMs, window.endMs);
        if (refusal) throw refusal;
        const [part] = (await placeUnits(tx, wanted.units, [wanted.host], live, window, policy)).parts;
        if (isNamed(wanted.units)) overRunningWork.push(...refuseRunningWork(part, context));
        parts.push(part);
      }
      // Named across fabrics is allowed: the booker may know better, and hears what it costs.
      return { parts, warnings: fabricWarnings(parts, await fabricsOf(tx, parts.map((part) => part.host.id))), overRunningWork };
    }
  }
}

function isNamed(units: UnitsRequest): boolean {
  return units.kind === "named-gpus" || units.kind === "named-slices";
}

/**
 * Someone else's job on a unit named and booked from now on would turn into
 * an "intruder": refused unless the order books over running work (one host
 * only). Answers the work booked over.
 */
function refuseRunningWork(part: ChosenPart, { actor, live, window, allowBusy }: PlaceContext): ReturnType<typeof findBusyGpus> {
  if (!live || window.startMs > window.nowMs + STARTS_NOW_MS) return [];
  const busy = findBusyGpus(part.gpus, part.host.name, live, actor.id);
  if (busy.length > 0) refuseOfflineHost(live, part.host);
  if (busy.length > 0 && !allowBusy) throw new GpuInUseError(busy);
  return busy;
}

/**
 * The audit entry of the whole booking, each unit by its one name ("GPU 0:2
 * (1g.10gb)") as the audit page shows it: a one-host booking by its host
 * and units, a booking across nodes by its parts (host, rank, units).
 */
async function auditOfBooking(tx: Tx, placement: Placement, ids: string[], common: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { parts, warnings, overRunningWork } = placement;
  const rows = await tx.gpu.findMany({
    where: { id: { in: parts.flatMap((part) => part.gpus.map((gpu) => gpu.id)) } },
    select: { id: true, index: true, migDeviceIndex: true, migProfile: true },
  });
  const unitOf = new Map(rows.map((row) => [row.id, storedUnit(row)]));
  const units = (part: ChosenPart) => part.gpus.map((gpu) => ({ index: gpu.index, uuid: gpu.uuid, unit: unitName(unitOf.get(gpu.id) ?? { index: gpu.index }) }));
  const overWork = overRunningWork.length > 0 ? { bookedOverRunningWork: busyGpusForAudit(overRunningWork) } : {};
  if (parts.length === 1) return { host: parts[0].host.name, gpus: units(parts[0]), ...common, ...overWork };
  return {
    ...(warnings.length > 0 ? { warnings } : {}),
    ...common,
    ...overWork,
    nodes: parts.length,
    parts: parts.map((part, rank) => ({ reservationId: ids[rank], nodeRank: rank, host: part.host.name, gpus: units(part) })),
  };
}
