import type { Snapshot } from "@/lib/domain/snapshot";
import type { GpuSource } from "@/host/collector/source";
import { createProcReader, enrichProcesses } from "@/host/collector/proc/proc-reader";

/** How long the collector reuses what /proc said of a process whose start time has not changed. */
export const OWNERSHIP_REUSE_MS = 30_000;

export interface CollectorOptions {
  source: GpuSource;
  /** Where to read process ownership; only used for a real GPU source. */
  procRoot?: string;
}

/**
 * One reading of a host: the GPU source's view, with each process's owner,
 * command line, cgroup and booking filled in from /proc. The simulated
 * source already knows its processes' owners.
 */
export function createCollector(options: CollectorOptions) {
  // Every second the same long-running processes: their owner, command and claim are read once, then only their start time.
  const reader =
    options.source.kind === "nvidia-smi" ? createProcReader({ procRoot: options.procRoot ?? "/proc", reuseMs: OWNERSHIP_REUSE_MS }) : null;
  return {
    async read(): Promise<Snapshot> {
      const snapshot = await options.source.read();
      return reader ? enrichProcesses(snapshot, reader) : snapshot;
    },
    readTopology: () => options.source.readTopology(),
    close: () => options.source.close(),
    onTick: options.source.onTick?.bind(options.source),
  };
}

export type Collector = ReturnType<typeof createCollector>;
