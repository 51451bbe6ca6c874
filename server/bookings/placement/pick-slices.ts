import { isGpuFree, migProfileSize, sliceAtLeast, unitRef } from "@/lib/domain/gpu-availability";
import { formatMemory } from "@/lib/format/format";
import { AppError } from "@/server/core/errors";
import { type GpuRow, type HostRef, unitsOfHost, type Window } from "@/server/bookings/placement/booking-candidates";
import { BookingConflictError, describeConflict } from "@/server/bookings/store/booking-conflict";
import type { BookingConflict } from "@/lib/domain/booking-types";
import type { Tx } from "@/server/bookings/store/booking-transaction";
import { type LiveView, liveStateNow, STARTS_NOW_MS } from "@/server/bookings/placement/gpu-in-use";
import { busyRanges, findConflicts, freeGpuIds } from "@/server/bookings/store/occupancy";
import type { HostUnit } from "@/server/bookings/placement/host-units";

/**
 * Booking MIG slices: by name ("0:1", GPU 0's MIG device 1) or "any N
 * slices of at least a profile or memory". A slice is a unit like a GPU:
 * the overlap check runs per slice in the booking transaction
 * (ReservationGpu rows, as for GPUs), and for a booking that starts now the
 * one availability rule decides whether it is free.
 */

export interface SliceRequest {
  profile?: string;
  minMemoryMiB?: number;
}

const sliceName = (unit: HostUnit) => `${unitRef(unit)} (${unit.mig?.profile ?? "?"})`;

/** The slices named, on one host; refuses names the host does not have now, and bookings in the way. */
export async function pickNamedSlices(tx: Tx, host: HostRef, refs: string[], window: Window): Promise<{ host: HostRef; gpus: GpuRow[] }> {
  const units = await unitsOfHost(tx, host.id);
  const slices = units.filter((unit) => unit.mig);
  const byRef = new Map(slices.map((unit) => [unitRef(unit), unit]));
  const missing = refs.filter((ref) => !byRef.has(ref));
  if (missing.length > 0) {
    const known = slices.map(sliceName).join(", ") || "none: no GPU of it is in MIG mode";
    const message = `${host.name} has no MIG slice ${missing.join(", ")} (its slices: ${known})`;
    throw new AppError("bad_request", message, { slices: message });
  }
  const chosen = refs.map((ref) => byRef.get(ref)!);
  const conflicts = await findConflicts(tx, chosen.map((unit) => unit.id), new Date(window.startMs), new Date(window.endMs));
  if (conflicts.length > 0) {
    const busy = await busyRanges(tx, slices.map((unit) => unit.id), new Date(window.startMs), new Date(window.endMs));
    const free = new Set(freeGpuIds(slices.map((unit) => unit.id), busy, window.startMs, window.endMs));
    const others = slices.filter((unit) => free.has(unit.id));
    const hint = others.length > 0 ? ` Free for that time on ${host.name}: ${others.map(sliceName).join(", ")}.` : "";
    const suggestion = { hostName: host.name, nextFreeAt: null, freeGpuIndices: [] };
    throw new BookingConflictError(`${bookersOf(conflicts, window.startMs)}.${hint}`, conflicts, suggestion);
  }
  return { host, gpus: chosen.map(({ id, index, uuid }) => ({ id, index, uuid })) };
}

/** The slice fits the request: at least the profile (compute slices and memory) and the memory asked for. */
export function sliceFits(unit: Pick<HostUnit, "mig" | "memoryTotalMiB">, request: SliceRequest): boolean {
  if (!unit.mig) return false;
  if (request.profile !== undefined && !sliceAtLeast(unit.mig.profile, request.profile)) return false;
  if (request.minMemoryMiB !== undefined && (unit.memoryTotalMiB ?? -1) < request.minMemoryMiB) return false;
  return true;
}

/** Smaller first: the best fit leaves the big slices to those who need them. */
function sizeOf(unit: HostUnit): number {
  const size = unit.mig ? migProfileSize(unit.mig.profile) : null;
  return (size?.compute ?? 99) * 1_000_000 + (unit.memoryTotalMiB ?? 0);
}

/**
 * Any `count` slices that fit, on one host, free for the whole window and,
 * for a booking that starts now, free by the one rule. The smallest slices
 * that fit are taken, on the host where they are smallest.
 */
export async function pickAnySlices(
  tx: Tx,
  hosts: HostRef[],
  count: number,
  request: SliceRequest,
  live: LiveView | null,
  window: Window,
): Promise<{ host: HostRef; gpus: GpuRow[]; explanation: string }> {
  const startsNow = window.startMs <= window.nowMs + STARTS_NOW_MS;
  const what = describeRequest(count, request);
  let best: { host: HostRef; units: HostUnit[]; cost: number } | null = null;
  let fitting = 0;
  let bookedAway: { host: HostRef; ids: string[] } | null = null;
  for (const host of hosts) {
    const fit = (await unitsOfHost(tx, host.id)).filter((unit) => sliceFits(unit, request));
    fitting = Math.max(fitting, fit.length);
    if (fit.length < count) continue;
    const busy = await busyRanges(tx, fit.map((unit) => unit.id), new Date(window.startMs), new Date(window.endMs));
    const freeIds = new Set(freeGpuIds(fit.map((unit) => unit.id), busy, window.startMs, window.endMs));
    let usable = fit.filter((unit) => freeIds.has(unit.id));
    if (usable.length < count) bookedAway ??= { host, ids: fit.map((unit) => unit.id) };
    if (startsNow && live) usable = usable.filter((unit) => isGpuFree(liveStateNow(live, host.id, unit.uuid).state));
    if (usable.length < count) continue;
    const units = [...usable].sort((a, b) => sizeOf(a) - sizeOf(b)).slice(0, count);
    const cost = units.reduce((sum, unit) => sum + sizeOf(unit), 0);
    if (!best || cost < best.cost) best = { host, units, cost };
  }
  if (best) {
    const names = best.units.map(sliceName).join(", ");
    return { host: best.host, gpus: best.units.map(({ id, index, uuid }) => ({ id, index, uuid })), explanation: `MIG slice${count > 1 ? "s" : ""} ${names} on ${best.host.name}: the smallest free that fit ${what}` };
  }
  if (fitting < count) {
    const message = `${hosts.length === 1 ? `${hosts[0]!.name} does not have` : "No host has"} ${what}`;
    throw new AppError("bad_request", message, { count: message });
  }
  if (bookedAway) {
    const conflicts = await findConflicts(tx, bookedAway.ids, new Date(window.startMs), new Date(window.endMs));
    const suggestion = { hostName: bookedAway.host.name, nextFreeAt: null, freeGpuIndices: [] };
    throw new BookingConflictError(`No ${what} free on ${bookedAway.host.name} for that time: ${bookersOf(conflicts, window.startMs)}.`, conflicts, suggestion);
  }
  throw new BookingConflictError(`No ${what} is free and idle now: someone runs on them without a booking. Book for later, or wait.`, [], { hostName: null, nextFreeAt: null, freeGpuIndices: [] });
}

/** "1 MIG slice of at least 3g.40gb with 40 GiB or more". */
function describeRequest(count: number, request: SliceRequest): string {
  const parts = [`${count} MIG slice${count > 1 ? "s" : ""}`];
  if (request.profile) parts.push(`of at least ${request.profile}`);
  if (request.minMemoryMiB !== undefined) parts.push(`with ${formatMemory(request.minMemoryMiB)} or more`);
  return parts.join(" ");
}

/** The bookings in the way, bookers named: "GPU 0:2 (1g.10gb) on node-a is booked by Ada until …". */
function bookersOf(conflicts: BookingConflict[], startMs: number): string {
  const bookers = conflicts.map((conflict) => conflict.bookedBy);
  const shown = conflicts.slice(0, 3).map((conflict) => describeConflict(conflict, startMs, bookers));
  return `${shown.join("; ")}${conflicts.length > 3 ? ` (and ${conflicts.length - 3} more)` : ""}`;
}
