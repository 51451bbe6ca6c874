import { type NamedPerson, personName } from "@/lib/format/person-name";
import { stateWithoutBooking } from "@/lib/domain/state-without-booking";
import { storedUnit, type UnitName } from "@/lib/domain/gpu-availability";
import type { UnbookedWork } from "@/lib/domain/waitlist-schema";
import type { LiveGpuSource } from "@/server/bookings/placement/gpu-in-use";
import type { BusyRange } from "@/server/bookings/store/occupancy";

export interface EstimateHostGpus {
  name: string;
  gpus: { id: string; uuid: string; index: number; migDeviceIndex?: number | null; migProfile?: string | null }[];
}

export interface UnbookedGpu {
  gpuId: string;
  hostName: string;
  index: number;
  /** A MIG slice's device and profile: it is named as everywhere. */
  mig?: UnitName["mig"];
  people: string[];
  /** When the earliest of its processes started (as the agent read it); null when no process shows a start. */
  sinceMs: number | null;
}

/**
 * GPUs that nobody has booked now but on which work runs (state
 * "in use without a booking" by the one rule), with who runs there. The
 * queue cannot promise these: nobody knows when such work ends.
 */
export function findUnbookedWork(hosts: EstimateHostGpus[], busy: BusyRange[], live: LiveGpuSource | undefined, nowMs: number): UnbookedGpu[] {
  if (!live) return [];
  const bookedNow = new Set(busy.filter((range) => range.startMs <= nowMs && nowMs < range.endMs).map((range) => range.gpuId));
  const { gpus, hosts: liveHosts } = live.current();
  const readings = new Map(gpus.map((gpu) => [gpu.uuid, gpu]));
  const online = new Set(liveHosts.filter((host) => host.online).map((host) => host.id));
  const states = live.gpuStates?.() ?? {};
  const found: { gpuId: string; hostName: string; index: number; mig?: UnitName["mig"]; sinceMs: number | null; processes: { runner: NamedPerson | null; login: string | null }[] }[] = [];
  for (const host of hosts) {
    for (const gpu of host.gpus) {
      const reading = readings.get(gpu.uuid);
      if (!reading || bookedNow.has(gpu.id)) continue;
      const state = stateWithoutBooking(reading, online.has(reading.hostId), states[gpu.uuid]);
      if (state.state !== "unbooked_use") continue;
      const starts = reading.processes.flatMap((process) => (process.startedAt ? [Date.parse(process.startedAt)] : []));
      const mig = gpu.migDeviceIndex !== null && gpu.migDeviceIndex !== undefined ? storedUnit({ index: gpu.index, migDeviceIndex: gpu.migDeviceIndex, migProfile: gpu.migProfile ?? null }).mig : undefined;
      found.push({ gpuId: gpu.id, hostName: host.name, index: gpu.index, ...(mig ? { mig } : {}), sinceMs: starts.length > 0 ? Math.min(...starts) : null, processes: state.processes });
    }
  }
  const everyone = found.flatMap((entry) => entry.processes.flatMap((process) => (process.runner ? [process.runner] : [])));
  return found.map(({ processes, ...entry }) => ({
    ...entry,
    // No process listed (a job in another PID namespace): someone holds it, nobody can say who.
    people: processes.length === 0 ? ["someone (no process visible)"] : [...new Set(processes.map((process) => (process.runner ? personName(process.runner, everyone) : (process.login ?? "someone unknown"))))],
  }));
}

/** The unbooked work a request that may take these hosts waits for (a few GPUs, everyone running there, since when). */
export function unbookedWorkFor(hostNames: readonly string[], unbooked: UnbookedGpu[]): (UnbookedWork & { sinceMs: number | null }) | null {
  const relevant = unbooked.filter((gpu) => hostNames.includes(gpu.hostName));
  if (relevant.length === 0) return null;
  const starts = relevant.flatMap((gpu) => (gpu.sinceMs === null ? [] : [gpu.sinceMs]));
  return {
    gpus: relevant.slice(0, 8).map((gpu) => ({ hostName: gpu.hostName, index: gpu.index, ...(gpu.mig ? { mig: gpu.mig } : {}) })),
    people: [...new Set(relevant.flatMap((gpu) => gpu.people))].slice(0, 6),
    sinceMs: starts.length > 0 ? Math.min(...starts) : null,
  };
}
