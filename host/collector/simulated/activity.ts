import type { HashPart } from "./hash";
import type { SimulatedHostSpec } from "./fleet";

/**
 * What runs on one simulated GPU at one instant, before it is turned into
 * nvidia-smi-like readings. Workloads write into these; telemetry reads them.
 */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

export interface SimulatedProcess {
  pid: number;
  /** As nvidia-smi's `process_name` shows it: the executable. */
  name: string;
  usedMemoryMiB: number;
  user: string;
  command: string;
  /** Milliseconds since the epoch; the start of the phase that runs it. */
  startedAt: number;
  container: string | null;
  slurmJobId: string | null;
}

export interface GpuActivity {
  /** 0..100, not yet rounded. */
  utilizationPct: number;
  /** Share of `utilizationPct` the memory controller is busy; depends on the workload. */
  memoryBusyRatio: number;
  processes: SimulatedProcess[];
}

/** Where a workload writes: the activity of every GPU of the host, by index. */
export interface WorkloadContext {
  spec: SimulatedHostSpec;
  activity: GpuActivity[];
  /** Seed, host and slot: the root of every hash this slot draws. */
  key: readonly HashPart[];
  t: number;
}

export function usedMemoryOf(activity: GpuActivity): number {
  return activity.processes.reduce((sum, p) => sum + p.usedMemoryMiB, 0);
}

/** A Jupyter-style kernel id (a UUID), part of the kernel's command line. */
export function kernelIdOf(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
