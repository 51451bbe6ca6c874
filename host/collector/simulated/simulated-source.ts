import type { GpuSample, ProcessInfo, Snapshot } from "@/lib/domain/snapshot";
import type { GpuSource } from "@/host/collector/source";
import type { SimulatedHostSpec } from "./fleet";
import { hashOf } from "./hash";
import { hostActivityAt } from "./host-activity";
import { partitionedGpuAt } from "./partitioned-gpu";
import { gpuSampleAt, processInfoOf } from "./telemetry";
import { simulatedTopologyText } from "./topology";

export { simulatedFleet, type SimulatedFleetOptions, type SimulatedHostSpec } from "./fleet";

export interface SimulatedSourceOptions {
  spec: SimulatedHostSpec;
  seed: number | string;
  /** Clock in ms since the epoch; tests pass a fixed or stepping one. */
  now?: () => number;
}

/**
 * A GpuSource for one simulated host. Each reading is a pure function of
 * (seed, host, GPU, time): two sources built alike read the same values at
 * the same instant. Processes carry full ownership (user, command, start,
 * container, Slurm job) because there is no /proc behind them to fill it in.
 */
export function createSimulatedSource({ spec, seed, now = Date.now }: SimulatedSourceOptions): GpuSource {
  let closed = false;
  return {
    kind: "simulated",
    async read() {
      if (closed) throw new Error(`simulated source for ${spec.hostName} is closed`);
      return simulatedSnapshotAt(spec, seed, now());
    },
    async readTopology() {
      return simulatedTopologyText(spec);
    },
    async close() {
      closed = true;
    },
  };
}

/**
 * A simulated host as it was at `simTime`, going on at real speed from there;
 * its readings carry the real time, so the server files them as live. Without
 * `simTime`, the host as it is now.
 */
export function createSimulatedSourceFrom(spec: SimulatedHostSpec, seed: number | string, simTime?: string): GpuSource {
  if (!simTime) return createSimulatedSource({ spec, seed });
  const offset = Date.parse(simTime) - Date.now();
  const source = createSimulatedSource({ spec, seed, now: () => Date.now() + offset });
  return { ...source, read: async () => ({ ...(await source.read()), sampledAt: new Date().toISOString() }) };
}

/** The snapshot a simulated host reports at time `t` (ms since the epoch). */
export function simulatedSnapshotAt(spec: SimulatedHostSpec, seed: number | string, t: number): Snapshot {
  const activity = hostActivityAt(seed, spec, t);
  const gpus: GpuSample[] = [];
  const processes: ProcessInfo[] = [];
  for (const gpu of spec.gpus) {
    if (gpu.mig) {
      // A GPU in MIG mode, then its slices, as the agent lists them (withSlices).
      const partitioned = partitionedGpuAt(spec, seed, gpu, t);
      gpus.push(...partitioned.gpus);
      processes.push(...partitioned.processes);
      continue;
    }
    const own = activity[gpu.index]!;
    gpus.push(gpuSampleAt(spec.model, gpu, own, [hashOf(seed, gpu.uuid)], t));
    for (const process of own.processes) processes.push(processInfoOf(gpu.uuid, process));
  }
  return {
    host: { name: spec.hostName, driverVersion: spec.driverVersion, cudaVersion: spec.cudaVersion },
    gpus,
    processes,
    sampledAt: new Date(t).toISOString(),
  };
}
