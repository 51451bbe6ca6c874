import type { PrismaClient } from "@prisma/client";
import { formatDurationMinutes, requestedWindow } from "@/lib/booking-window";
import type { LiveGpu } from "@/lib/live";
import type { ReservationRequest } from "@/lib/reservation-schema";
import type { ConflictSuggestion, ReservationView } from "@/lib/reservation-types";
import { db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Actor, ServiceOptions } from "@/server/reservations/actor";
import { writeAudit } from "@/server/reservations/audit-log";
import { BookingConflictError, conflictMessage } from "@/server/reservations/booking-conflict";
import { announceBookingsChanged } from "@/server/reservations/booking-events";
import { bookingTransaction, type Tx } from "@/server/reservations/booking-transaction";
import { busyRanges, findConflicts, freeGpuIds, nearestFreeStart, peakGpusHeld } from "@/server/reservations/occupancy";
import { type PolicyValues, readPolicy } from "@/server/reservations/policy";
import { getReservationView } from "@/server/reservations/list-reservations";

const DAY_MS = 24 * 3600_000;

/** Live readings that the "any N GPUs" choice uses: free memory and running processes. */
export interface LiveGpuSource {
  snapshot(): { gpus: LiveGpu[] };
}

export interface CreateOptions extends ServiceOptions {
  fleet?: LiveGpuSource;
}

interface HostRef {
  id: string;
  name: string;
}

interface GpuRow {
  id: string;
  index: number;
  uuid: string;
}

interface Window {
  startMs: number;
  endMs: number;
  nowMs: number;
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
  const { startMs, endMs, startInPast } = requestedWindow(request, now.getTime());
  const endField = request.endsAt !== undefined ? "endsAt" : "durationMinutes";
  if (startInPast) {
    throw new AppError("bad_request", "The start time has passed", { startsAt: "This time has passed: start now or later" });
  }
  if (endMs <= startMs) throw new AppError("bad_request", "The end must be after the start", { [endField]: "The end must be after the start" });
  const window: Window = { startMs, endMs, nowMs: now.getTime() };

  const hosts = await candidateHosts(client, request.host);
  const live = new Map((options.fleet?.snapshot().gpus ?? []).map((gpu) => [gpu.uuid, gpu]));

  const id = await bookingTransaction(client, { userId: actor.id, hostIds: hosts.map((host) => host.id) }, async (tx) => {
    const policy = await readPolicy(tx);
    checkPolicyTimes(policy, window, endField);
    const chosen = request.gpus
      ? await pickNamedGpus(tx, hosts[0], request.gpus, window, policy)
      : await pickAnyGpus(tx, hosts, request.count ?? 1, request.minFreeMemoryMiB, live, window, policy);

    const start = new Date(startMs);
    const end = new Date(endMs);
    const held = await peakGpusHeld(tx, actor.id, start, end);
    if (held + chosen.gpus.length > policy.maxGpusPerUser) {
      const message = `You would hold ${held + chosen.gpus.length} GPUs at once; the limit is ${policy.maxGpusPerUser} per person`;
      throw new AppError("bad_request", message, { [request.gpus ? "gpus" : "count"]: message });
    }

    // All checks passed: only now write (see bookingTransaction).
    const created = await tx.reservation.create({
      data: {
        userId: actor.id,
        hostId: chosen.host.id,
        startsAt: start,
        endsAt: end,
        purpose: request.purpose,
        status: "booked",
        createdAt: now,
        gpus: { create: chosen.gpus.map((gpu) => ({ gpuId: gpu.id, startsAt: start, endsAt: end })) },
      },
      select: { id: true },
    });
    await writeAudit(tx, {
      actorId: actor.id,
      action: "reservation.create",
      entityType: "reservation",
      entityId: created.id,
      after: {
        host: chosen.host.name,
        gpus: chosen.gpus.map((gpu) => ({ index: gpu.index, uuid: gpu.uuid })),
        startsAt: start.toISOString(),
        endsAt: end.toISOString(),
        purpose: request.purpose,
        status: "booked",
      },
      at: now,
    });
    return created.id;
  });

  announceBookingsChanged();
  return getReservationView(client, id, now.getTime());
}

async function candidateHosts(client: PrismaClient, name: string | undefined): Promise<HostRef[]> {
  if (name !== undefined) {
    const host = await client.host.findUnique({ where: { name }, select: { id: true, name: true } });
    if (!host) throw new AppError("bad_request", `There is no host named ${name}`, { host: `There is no host named ${name}` });
    return [host];
  }
  const hosts = await client.host.findMany({ where: { gpus: { some: {} } }, select: { id: true, name: true }, orderBy: { name: "asc" } });
  if (hosts.length === 0) throw new AppError("bad_request", "No host with GPUs is known yet", { count: "No host with GPUs is known yet" });
  return hosts;
}

function checkPolicyTimes(policy: PolicyValues, window: Window, endField: string): void {
  const minutes = (window.endMs - window.startMs) / 60_000;
  if (minutes > policy.maxDurationMinutes) {
    const message = `A booking lasts at most ${formatDurationMinutes(policy.maxDurationMinutes)}`;
    throw new AppError("bad_request", message, { [endField]: message });
  }
  if (window.startMs > window.nowMs + policy.maxAdvanceDays * DAY_MS) {
    const message = `You can book at most ${policy.maxAdvanceDays} days ahead`;
    throw new AppError("bad_request", message, { startsAt: message });
  }
}

async function gpusOfHost(tx: Tx, hostId: string): Promise<GpuRow[]> {
  // Oldest sighting first, so that a GPU seen later under a reused index wins below.
  return tx.gpu.findMany({
    where: { hostId },
    orderBy: [{ index: "asc" }, { lastSeenAt: "asc" }],
    select: { id: true, index: true, uuid: true },
  });
}

async function pickNamedGpus(tx: Tx, host: HostRef, indices: number[], window: Window, policy: PolicyValues) {
  const hostGpus = await gpusOfHost(tx, host.id);
  const byIndex = new Map(hostGpus.map((gpu) => [gpu.index, gpu]));
  const missing = indices.filter((index) => !byIndex.has(index));
  if (missing.length > 0) {
    const known = [...byIndex.keys()].join(", ") || "none";
    const message = `${host.name} has no GPU ${missing.join(", ")} (its GPUs: ${known})`;
    throw new AppError("bad_request", message, { gpus: message });
  }
  const gpus = [...indices].sort((a, b) => a - b).map((index) => byIndex.get(index) as GpuRow);
  const conflicts = await findConflicts(tx, gpus.map((gpu) => gpu.id), new Date(window.startMs), new Date(window.endMs));
  if (conflicts.length > 0) {
    const suggestion = await suggestAlternative(tx, host, [...byIndex.values()], gpus, gpus.length, window, policy);
    throw new BookingConflictError(conflictMessage(conflicts, window.startMs, suggestion, gpus.length > 1), conflicts, suggestion);
  }
  return { host, gpus };
}

/** Free memory now, or null without a reading. */
function freeMemoryMiB(gpu: LiveGpu | undefined): number | null {
  if (!gpu || gpu.memoryTotalMiB === null || gpu.memoryUsedMiB === null) return null;
  return gpu.memoryTotalMiB - gpu.memoryUsedMiB;
}

async function pickAnyGpus(
  tx: Tx,
  hosts: HostRef[],
  count: number,
  minFreeMemoryMiB: number | undefined,
  live: Map<string, LiveGpu>,
  window: Window,
  policy: PolicyValues,
) {
  const start = new Date(window.startMs);
  const end = new Date(window.endMs);
  const tried: { host: HostRef; all: GpuRow[]; eligible: GpuRow[] }[] = [];
  // Hosts reporting live first: a booking on a host that is down helps nobody today.
  const ordered = [...hosts].sort((a, b) => Number(hasLive(b, live)) - Number(hasLive(a, live)));
  for (const host of ordered) {
    const all = await gpusOfHost(tx, host.id);
    const eligible = all.filter((gpu) => minFreeMemoryMiB === undefined || (freeMemoryMiB(live.get(gpu.uuid)) ?? -1) >= minFreeMemoryMiB);
    tried.push({ host, all, eligible });
    if (eligible.length < count) continue;
    const busy = await busyRanges(tx, eligible.map((gpu) => gpu.id), start, end);
    const free = new Set(freeGpuIds(eligible.map((gpu) => gpu.id), busy, window.startMs, window.endMs));
    if (free.size < count) continue;
    // Idle GPUs with the most free memory first, then nvidia-smi order.
    const best = eligible
      .filter((gpu) => free.has(gpu.id))
      .sort((a, b) => score(b, live) - score(a, live) || a.index - b.index)
      .slice(0, count)
      .sort((a, b) => a.index - b.index);
    return { host, gpus: best };
  }

  const memoryNote = minFreeMemoryMiB !== undefined ? ` with at least ${minFreeMemoryMiB} MiB free now` : "";
  const bigEnough = tried.filter((entry) => entry.eligible.length >= count);
  if (bigEnough.length === 0) {
    const where = hosts.length === 1 ? hosts[0].name : "any host";
    const message = `${where === "any host" ? "No host has" : `${where} does not have`} ${count} GPU${count > 1 ? "s" : ""}${memoryNote}`;
    throw new AppError("bad_request", message, { [minFreeMemoryMiB !== undefined ? "minFreeMemoryMiB" : "count"]: message });
  }
  // Every host that could fit is booked: explain with the host that frees up first.
  let best: { host: HostRef; conflicts: Awaited<ReturnType<typeof findConflicts>>; suggestion: ConflictSuggestion } | null = null;
  for (const entry of bigEnough) {
    const suggestion = await suggestAlternative(tx, entry.host, entry.all, entry.eligible, count, window, policy);
    if (!best || earlier(suggestion.nextFreeAt, best.suggestion.nextFreeAt)) {
      const conflicts = await findConflicts(tx, entry.eligible.map((gpu) => gpu.id), start, end);
      best = { host: entry.host, conflicts, suggestion };
    }
  }
  const chosen = best as NonNullable<typeof best>;
  const where = hosts.length === 1 ? `on ${hosts[0].name}` : "on any one host";
  const intro = `No ${count} GPU${count > 1 ? "s" : ""}${memoryNote} are free ${where} from ${start.toISOString()} until ${end.toISOString()}: `;
  throw new BookingConflictError(intro + conflictMessage(chosen.conflicts, window.startMs, chosen.suggestion, count > 1), chosen.conflicts, chosen.suggestion);
}

function hasLive(host: HostRef, live: Map<string, LiveGpu>): boolean {
  for (const gpu of live.values()) if (gpu.hostId === host.id) return true;
  return false;
}

function score(gpu: GpuRow, live: Map<string, LiveGpu>): number {
  const reading = live.get(gpu.uuid);
  const idle = reading && reading.processes.length === 0 ? 1e9 : 0;
  return idle + (freeMemoryMiB(reading) ?? 0);
}

function earlier(a: string | null, b: string | null): boolean {
  if (a === null) return false;
  return b === null || a < b;
}

/**
 * The nearest start when `need` of the wanted GPUs are free for as long as
 * asked, within how far ahead the policy lets anyone book, and the host's
 * GPUs that are free for the time asked.
 */
async function suggestAlternative(
  tx: Tx,
  host: HostRef,
  hostGpus: GpuRow[],
  wanted: GpuRow[],
  need: number,
  window: Window,
  policy: PolicyValues,
): Promise<ConflictSuggestion> {
  const durationMs = window.endMs - window.startMs;
  const latestStartMs = window.nowMs + policy.maxAdvanceDays * DAY_MS;
  const busy = await busyRanges(tx, hostGpus.map((gpu) => gpu.id), new Date(window.startMs), new Date(latestStartMs + durationMs));
  const next = nearestFreeStart(wanted.map((gpu) => gpu.id), need, busy, window.startMs, durationMs, latestStartMs);
  const free = new Set(freeGpuIds(hostGpus.map((gpu) => gpu.id), busy, window.startMs, window.endMs));
  return {
    hostName: host.name,
    nextFreeAt: next === null ? null : new Date(next).toISOString(),
    freeGpuIndices: hostGpus.filter((gpu) => free.has(gpu.id)).map((gpu) => gpu.index),
  };
}
