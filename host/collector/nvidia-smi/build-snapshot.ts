import type { GpuSample, ProcessInfo, Snapshot } from "@/lib/domain/snapshot";
import type { ComputeAppRow } from "@/host/collector/nvidia-smi/parse-csv";
import type { NvidiaSmiXmlLog } from "@/host/collector/nvidia-smi/parse-xml";

export interface SnapshotParts {
  hostName: string;
  driverVersion: string | null;
  cudaVersion: string | null;
  gpus: GpuSample[];
  processes: Pick<ComputeAppRow, "gpuUuid" | "pid" | "name" | "usedMemoryMiB">[];
  sampledAt: Date;
}

const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);
const clipOrNull = (text: string | null, max: number) => (text === null || text.length > max ? null : text);

/**
 * A Snapshot from parsed nvidia-smi output. Ownership fields (user, command,
 * container …) are left null: only /proc can answer them, and the collector
 * fills them in afterwards. Text is clipped to the contract's bounds rather
 * than rejected, since one odd process name must not cost the whole reading.
 * The contract itself (lib/domain/snapshot.ts) is checked where it matters, by the
 * server on every reading it receives; checking it here as well cost the
 * agent a tenth of its CPU (docs/benchmark.md, issue 28).
 */
export function buildSnapshot(parts: SnapshotParts): Snapshot {
  // Stable: a MIG GPU's slices keep their place after it.
  const gpus = [...parts.gpus]
    .sort((a, b) => a.index - b.index)
    .slice(0, 256)
    .map((gpu) => ({
      ...gpu,
      uuid: clip(gpu.uuid, 128),
      name: clip(gpu.name, 128),
      pciBusId: clipOrNull(gpu.pciBusId, 64),
      // Longer texts here are messages ("Requested functionality has been deprecated"), not states.
      pstate: clipOrNull(gpu.pstate, 8),
      migMode: clipOrNull(gpu.migMode, 32),
    }));
  const processes: ProcessInfo[] = parts.processes.slice(0, 4096).map((p) => ({
    gpuUuid: clip(p.gpuUuid, 128),
    pid: p.pid,
    name: clip(p.name, 1024),
    usedMemoryMiB: p.usedMemoryMiB,
    user: null,
    command: null,
    startedAt: null,
    container: null,
    slurmJobId: null,
    reservationId: null,
  }));
  return {
    host: {
      name: clip(parts.hostName, 253),
      driverVersion: clipOrNull(parts.driverVersion, 64),
      cudaVersion: clipOrNull(parts.cudaVersion, 32),
    },
    gpus,
    processes,
    sampledAt: parts.sampledAt.toISOString(),
  };
}

/**
 * The processes of a `-q -x` dump in the shape of `--query-compute-apps`
 * rows. Graphics-only processes (type "G") are left out because the CSV
 * query, the normal source, never lists them.
 */
export function processesFromXml(log: NvidiaSmiXmlLog): SnapshotParts["processes"] {
  return log.gpus.flatMap(({ gpu, processes }) =>
    processes
      .filter((p) => p.type === null || p.type.includes("C"))
      .map((p) => ({ gpuUuid: gpu.uuid, pid: p.pid, name: p.name, usedMemoryMiB: p.usedMemoryMiB })),
  );
}
