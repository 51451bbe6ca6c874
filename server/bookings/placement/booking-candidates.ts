import { isPartitioned } from "@/lib/domain/gpu-availability";
import type { ConflictSuggestion } from "@/lib/domain/booking-types";
import { currentUnits, type HostUnit, unitOrder, unitSelect } from "@/server/bookings/placement/host-units";
import type { Tx } from "@/server/bookings/store/booking-transaction";
import { freeNow, type LiveView } from "@/server/bookings/placement/gpu-in-use";
import { busyRanges, freeGpuIds, nearestFreeStart } from "@/server/bookings/store/occupancy";
import type { PolicyValues } from "@/server/bookings/rules/policy";

/** What the booking paths know of a host and its GPUs while they choose. */

export const DAY_MS = 24 * 3600_000;

export interface HostRef {
  id: string;
  name: string;
  /** `nvidia-smi topo -m` as the agent reported it; null until known. */
  topology: string | null;
}

export interface GpuRow {
  id: string;
  index: number;
  uuid: string;
}

export interface Window {
  startMs: number;
  endMs: number;
  nowMs: number;
}

/**
 * The whole GPUs of a host that can be booked as GPUs: not a MIG slice, and
 * not a GPU split into slices (its slices are the units: `unitsOfHost`).
 */
export async function gpusOfHost(tx: Tx, hostId: string): Promise<GpuRow[]> {
  // Oldest sighting first, so that a GPU seen later under a reused index wins below.
  const rows = await tx.gpu.findMany({
    where: { hostId, migDeviceIndex: null },
    orderBy: [{ index: "asc" }, { lastSeenAt: "asc" }],
    select: { id: true, index: true, uuid: true, migMode: true },
  });
  return rows.filter((gpu) => !isPartitioned(gpu)).map(({ id, index, uuid }) => ({ id, index, uuid }));
}

/** Every unit of a host now, slices and partitioned GPUs included (server/bookings/placement/host-units.ts). */
export async function unitsOfHost(tx: Tx, hostId: string): Promise<HostUnit[]> {
  return currentUnits(await tx.gpu.findMany({ where: { hostId }, orderBy: unitOrder, select: unitSelect }));
}

/**
 * The nearest start when `need` of the wanted GPUs are free for as long as
 * asked, within how far ahead the policy lets anyone book, and the host's
 * GPUs that are free for the time asked (and, for a window that starts
 * now, free by the one availability rule: a GPU someone runs on is never
 * offered).
 */
export async function suggestAlternative(
  tx: Tx,
  host: HostRef,
  hostGpus: GpuRow[],
  wanted: GpuRow[],
  need: number,
  window: Window,
  policy: PolicyValues,
  live: LiveView | null = null,
): Promise<ConflictSuggestion> {
  const durationMs = window.endMs - window.startMs;
  const latestStartMs = window.nowMs + policy.maxAdvanceDays * DAY_MS;
  const busy = await busyRanges(tx, hostGpus.map((gpu) => gpu.id), new Date(window.startMs), new Date(latestStartMs + durationMs));
  const next = nearestFreeStart(wanted.map((gpu) => gpu.id), need, busy, window.startMs, durationMs, latestStartMs);
  const free = new Set(freeGpuIds(hostGpus.map((gpu) => gpu.id), busy, window.startMs, window.endMs));
  return {
    hostName: host.name,
    nextFreeAt: next === null ? null : new Date(next).toISOString(),
    freeGpuIndices: freeNow(
      hostGpus.filter((gpu) => free.has(gpu.id)),
      host.id,
      live,
      window,
    ).map((gpu) => gpu.index),
  };
}
