import { unitRef } from "@/lib/domain/gpu-availability";
import { AppError } from "@/server/core/errors";
import { type GpuRow, gpusOfHost, type HostRef, suggestAlternative, unitsOfHost, type Window } from "@/server/bookings/placement/booking-candidates";
import type { LiveView } from "@/server/bookings/placement/gpu-in-use";
import { type AnyGpusRequest, pickAnyGpus } from "@/server/bookings/placement/pick-any-gpus";
import { pickAnySlices, pickNamedSlices, type SliceRequest } from "@/server/bookings/placement/pick-slices";
import { type ChosenPart, pickAnyNodes } from "@/server/bookings/placement/place-nodes";
import { BookingConflictError, conflictMessage } from "@/server/bookings/store/booking-conflict";
import type { Tx } from "@/server/bookings/store/booking-transaction";
import { findConflicts } from "@/server/bookings/store/occupancy";
import type { EffectiveLimits } from "@/server/bookings/rules/check-limits";
import type { PolicyValues } from "@/server/bookings/rules/policy";

/** What a booking asks for, by kind: units named on one host, any units on one host, or any N nodes. */
export type UnitsRequest =
  | { kind: "named-gpus"; gpus: number[] }
  | { kind: "named-slices"; slices: string[] }
  | ({ kind: "any-gpus" } & AnyGpusRequest)
  | { kind: "any-slices"; count: number; slice: SliceRequest }
  | { kind: "any-nodes"; nodes: number; gpusPerNode: number; model?: string; limits: EffectiveLimits };

/** The units a request gets: one part per host (one for a one-host booking), and why, where gpudesk chose them. */
export interface UnitsPlan {
  parts: ChosenPart[];
  explanation?: string;
  warnings: string[];
}

/**
 * placeUnits(request, hosts, live, window): the one way a booking's units
 * are chosen, inside the booking's transaction (its reads see the locked
 * hosts' bookings). Named units are checked (they exist, are free for the
 * window, are not split into slices); "any" units are chosen by the rules
 * of pick-any-gpus.ts (idle first, closest by topology, most free memory,
 * least worn), pick-slices.ts (the smallest slices that fit) and
 * place-nodes.ts (one fabric, packed), which the queue's estimate asks too.
 * Named units go on `hosts[0]`; "any" units on any of `hosts`. Refuses with
 * the booking's conflict (409) or bad request (400).
 */
export async function placeUnits(tx: Tx, request: UnitsRequest, hosts: HostRef[], live: LiveView | null, window: Window, policy: PolicyValues): Promise<UnitsPlan> {
  switch (request.kind) {
    case "named-gpus":
      return { parts: [await pickNamedGpus(tx, hosts[0], request.gpus, window, policy, live)], warnings: [] };
    case "named-slices":
      return { parts: [await pickNamedSlices(tx, hosts[0], request.slices, window)], warnings: [] };
    case "any-gpus": {
      const { kind: _kind, ...anyGpus } = request;
      const picked = await pickAnyGpus(tx, hosts, anyGpus, live, window, policy);
      return { parts: [picked], explanation: picked.explanation, warnings: [] };
    }
    case "any-slices": {
      const picked = await pickAnySlices(tx, hosts, request.count, request.slice, live, window);
      return { parts: [picked], explanation: picked.explanation, warnings: [] };
    }
    case "any-nodes":
      return pickAnyNodes(tx, hosts, request.nodes, request.gpusPerNode, request.model, request.limits, live, window, policy);
  }
}

async function pickNamedGpus(tx: Tx, host: HostRef, indices: number[], window: Window, policy: PolicyValues, live: LiveView | null) {
  await refusePartitioned(tx, host, indices);
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
    const suggestion = await suggestAlternative(tx, host, [...byIndex.values()], gpus, gpus.length, window, policy, live);
    throw new BookingConflictError(conflictMessage(conflicts, window.startMs, suggestion, gpus.length > 1), conflicts, suggestion);
  }
  return { host, gpus };
}

/** A GPU split into MIG slices is booked by its slices: naming it refuses, with the slices to book instead. */
async function refusePartitioned(tx: Tx, host: HostRef, indices: number[]): Promise<void> {
  const units = await unitsOfHost(tx, host.id);
  const split = units.filter((unit) => unit.partitioned && indices.includes(unit.index));
  if (split.length === 0) return;
  const slices = units.filter((unit) => unit.mig && split.some((gpu) => gpu.index === unit.index));
  const list = slices.map((unit) => `${unitRef(unit)} (${unit.mig!.profile})`).join(", ") || "none yet";
  const message = `GPU ${split.map((gpu) => gpu.index).join(", ")} on ${host.name} ${split.length > 1 ? "are" : "is"} split into MIG slices: book a slice instead (${list})`;
  throw new AppError("bad_request", message, { gpus: message });
}
