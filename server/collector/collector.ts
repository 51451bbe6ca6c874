import type { Snapshot } from "@/lib/snapshot";
import type { GpuSource } from "@/server/collector/source";
import { createProcReader, enrichProcesses } from "@/server/collector/proc/proc-reader";

export interface CollectorOptions {
  source: GpuSource;
  /** Where to read process ownership; only used for a real GPU source. */
  procRoot?: string;
}

/**
 * One reading of a host: the GPU source's view, with each process's owner,
 * command line, cgroup and reservation filled in from /proc. The simulated
 * source already knows its processes' owners.
 */
export function createCollector(options: CollectorOptions) {
  const reader = options.source.kind === "nvidia-smi" ? createProcReader({ procRoot: options.procRoot ?? "/proc" }) : null;
  return {
    async read(): Promise<Snapshot> {
      const snapshot = await options.source.read();
      return reader ? enrichProcesses(snapshot, reader) : snapshot;
    },
    readTopology: () => options.source.readTopology(),
    close: () => options.source.close(),
  };
}

export type Collector = ReturnType<typeof createCollector>;
