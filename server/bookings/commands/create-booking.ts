import type { PrismaClient } from "@prisma/client";
import { policyTimeRefusal, type RequestedTimes, requestedWindow } from "@/lib/domain/booking-window";
import type { ReservationRequest } from "@/lib/domain/reservation-schema";
import type { ReservationView } from "@/lib/domain/reservation-types";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import type { Actor, ServiceOptions } from "@/server/access/actor";
import { writeAudit } from "@/server/access/audit-log";
import { bookingTransaction, type Tx } from "@/server/bookings/store/booking-transaction";
import { type HostRef, type Window } from "@/server/bookings/placement/booking-candidates";
import { busyGpusForAudit, findBusyGpus, GpuInUseError, type LiveGpuSource, liveView, refuseOfflineHost, STARTS_NOW_MS } from "@/server/bookings/placement/gpu-in-use";
import { placeUnits, type UnitsRequest } from "@/server/bookings/placement/place-units";
import { storedUnit, unitName } from "@/lib/domain/gpu-availability";
import { type PolicyValues, readPolicy } from "@/server/bookings/rules/policy";
import { getReservationView } from "@/server/bookings/views/list-bookings";
import { checkBookingLimits, effectiveLimits, refuseHost } from "@/server/bookings/rules/check-limits";
import { bookingTeam } from "@/server/bookings/rules/booking-team";
import { refuseOverPersonCap } from "@/server/bookings/rules/person-cap";

export interface CreateOptions extends ServiceOptions {
  fleet?: LiveGpuSource;
  /**
   * Something the booking must take first, in the same transaction (the
   * waitlist's entry): `before` runs once every check passed, just before the
   * insert, and refuses with an AppError when the thing is gone (nothing is
   * written then); `after` links it to the new reservation.
   */
  claim?: { before(tx: Tx): Promise<void>; after(tx: Tx, reservationId: string): Promise<void> };
}

/**
 * Books GPUs for a person: the GPUs they named on a host, or any N GPUs on
 * one host (optionally with at least some free memory right now). The
 * overlap check and the insert run in one write transaction, so two
 * requests for the same GPU and time can never both succeed.
 */
export async function createReservation(actor: Actor, request: ReservationRequest, options: CreateOptions = {}): Promise<ReservationView> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  const { window, endField } = checkedWindow(request, now);
  const { startMs, endMs } = window;

  const hosts = await candidateHosts(client, request.host);
  const team = await bookingTeam(client, actor.id, request.team);
  const scope = { userId: actor.id, username: actor.username, team };
  const live = liveView(options.fleet);
  let explanation: string | undefined;
  let overRunningWork: ReturnType<typeof findBusyGpus> = [];

  const lock = { userId: actor.id, hostIds: hosts.map((host) => host.id), teamIds: team ? [team.id] : [] };
  const id = await bookingTransaction(client, lock, async (tx, changes) => {
    const policy = await readPolicy(tx);
    checkPolicyTimes(policy, window, endField);
    // The team's and the person's limits (server/bookings/rules/), in the same transaction as the overlap check.
    const limits = await effectiveLimits(tx, scope);
    const refusals = hosts.map((host) => refuseHost(limits, host.name, startMs, endMs));
    const allowedHosts = hosts.filter((_, i) => refusals[i] === null);
    if (allowedHosts.length === 0) throw refusals[0];
    // Named units on the named host; "any" units on any host the limits allow (placeUnits).
    const wanted: UnitsRequest = request.slices
      ? { kind: "named-slices", slices: request.slices }
      : request.slice
        ? { kind: "any-slices", count: request.count ?? 1, slice: request.slice }
        : request.gpus
          ? { kind: "named-gpus", gpus: request.gpus }
          : { kind: "any-gpus", count: request.count ?? 1, minFreeMemoryMiB: request.minFreeMemoryMiB };
    const namedUnits = wanted.kind === "named-slices" || wanted.kind === "named-gpus";
    const plan = await placeUnits(tx, wanted, namedUnits ? hosts : allowedHosts, live, window, policy);
    const chosen = plan.parts[0];
    explanation = plan.explanation;
    // Someone else's job on a unit named and booked from now on would turn into an "intruder": refuse unless asked to book anyway.
    if (namedUnits && live && window.startMs <= window.nowMs + STARTS_NOW_MS) {
      const busy = findBusyGpus(chosen.gpus, chosen.host.name, live, actor.id);
      if (busy.length > 0) refuseOfflineHost(live, chosen.host);
      if (busy.length > 0 && request.allowBusy !== true) throw new GpuInUseError(busy);
      overRunningWork = busy;
    }

    const start = new Date(startMs);
    const end = new Date(endMs);
    await refuseOverPersonCap(tx, policy, { userId: actor.id, start, end, gpus: chosen.gpus.length, field: request.slices ? "slices" : request.gpus ? "gpus" : "count" });
    const gpuCount = chosen.gpus.length;
    await checkBookingLimits(tx, scope, { hostName: chosen.host.name, startMs, endMs, gpus: gpuCount, gpuIds: chosen.gpus.map((gpu) => gpu.id), totalMinutes: (endMs - startMs) / 60_000 }, limits);

    // All checks passed: only now write (see bookingTransaction). A claim
    // that fails here still comes before any write.
    await options.claim?.before(tx);
    const created = await tx.reservation.create({
      data: {
        userId: actor.id,
        hostId: chosen.host.id,
        startsAt: start,
        endsAt: end,
        purpose: request.purpose,
        status: "booked",
        teamId: team?.id ?? null,
        createdAt: now,
        gpus: { create: chosen.gpus.map((gpu) => ({ gpuId: gpu.id, startsAt: start, endsAt: end })) },
      },
      select: { id: true },
    });
    const named = await tx.gpu.findMany({ where: { id: { in: chosen.gpus.map((gpu) => gpu.id) } }, select: { id: true, index: true, migDeviceIndex: true, migProfile: true } });
    const unitOf = new Map(named.map((row) => [row.id, storedUnit(row)]));
    await writeAudit(tx, {
      actorId: actor.id,
      action: "reservation.create",
      entityType: "reservation",
      entityId: created.id,
      after: {
        host: chosen.host.name,
        // Each unit by its one name ("GPU 0:2 (1g.10gb)"), as the audit page shows it.
        gpus: chosen.gpus.map((gpu) => ({ index: gpu.index, uuid: gpu.uuid, unit: unitName(unitOf.get(gpu.id) ?? { index: gpu.index }) })),
        startsAt: start.toISOString(),
        endsAt: end.toISOString(),
        purpose: request.purpose,
        status: "booked",
        ...(team ? { team: team.name } : {}),
        ...(overRunningWork.length > 0 ? { bookedOverRunningWork: busyGpusForAudit(overRunningWork) } : {}),
      },
      at: now,
    });
    await options.claim?.after(tx, created.id);
    changes.record({ kind: "created", bookingId: created.id });
    return created.id;
  });

  const view = await getReservationView(client, id, now.getTime(), actor.id);
  return explanation ? { ...view, explanation } : view;
}

/** The window asked for, refused when it starts in the past or ends before it starts; `endField` names the field that set the end. */
export function checkedWindow(request: RequestedTimes, now: Date): { window: Window; endField: "endsAt" | "durationMinutes" } {
  const { startMs, endMs, startInPast } = requestedWindow(request, now.getTime());
  const endField = request.endsAt !== undefined ? "endsAt" : "durationMinutes";
  if (startInPast) {
    throw new AppError("bad_request", "The start time has passed", { startsAt: "This time has passed: start now or later" });
  }
  if (endMs <= startMs) throw new AppError("bad_request", "The end must be after the start", { [endField]: "The end must be after the start" });
  return { window: { startMs, endMs, nowMs: now.getTime() }, endField };
}


export async function candidateHosts(client: PrismaClient, name: string | undefined): Promise<HostRef[]> {
  if (name !== undefined) {
    const host = await client.host.findUnique({ where: { name }, select: { id: true, name: true, topology: true } });
    if (!host) throw new AppError("bad_request", `There is no host named ${name}`, { host: `There is no host named ${name}` });
    return [host];
  }
  const hosts = await client.host.findMany({ where: { gpus: { some: {} } }, select: { id: true, name: true, topology: true }, orderBy: { name: "asc" } });
  if (hosts.length === 0) throw new AppError("bad_request", "No host with GPUs is known yet", { count: "No host with GPUs is known yet" });
  return hosts;
}

export function checkPolicyTimes(policy: PolicyValues, window: Window, endField: string): void {
  const refusal = policyTimeRefusal(policy, window.startMs, window.endMs, window.nowMs);
  if (refusal) throw new AppError("bad_request", refusal.message, { [refusal.field === "duration" ? endField : "startsAt"]: refusal.message });
}

