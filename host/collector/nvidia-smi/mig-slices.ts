import type { GpuSample } from "@/lib/domain/snapshot";
import { canonicalGpuUuid } from "@/lib/domain/gpu-uuid";
import type { ListedGpu } from "@/host/collector/nvidia-smi/parse-list";
import type { XmlMigDevice, XmlProcess } from "@/host/collector/nvidia-smi/parse-xml";

/**
 * The MIG layout of a host, joined from two readings: `nvidia-smi -L` names
 * each MIG device (its UUID, its profile and its device index), the report
 * (`-q` or `-q -x`) gives each device index its GPU and compute instance,
 * its memory, and places each process in its instance. Neither alone is
 * enough: the report has no MIG UUID or profile, `-L` no memory or processes.
 */
export interface MigLayout {
  gpus: {
    uuid: string;
    listed: ListedGpu | null;
    migDevices: XmlMigDevice[];
    processes: XmlProcess[];
  }[];
}

const key = (uuid: string) => canonicalGpuUuid(uuid);

/** "Enabled" in any case: nvidia-smi writes it so, other tools sometimes lower-case it. */
export function isMigEnabled(migMode: string | null): boolean {
  return migMode?.toLowerCase() === "enabled";
}

/**
 * The slices of one GPU in MIG mode as units of their own: one per MIG device
 * `-L` lists, with the report's instance ids and memory (null where the
 * report has no entry for its device index). Utilization, temperature,
 * power and clocks stay the parent's: nvidia-smi reports none of them per
 * MIG device. An uncorrected ECC error of the parent is every slice's.
 */
export function slicesOf(parent: GpuSample, layout: MigLayout): GpuSample[] {
  const entry = layout.gpus.find((gpu) => key(gpu.uuid) === key(parent.uuid));
  if (!entry?.listed || !isMigEnabled(parent.migMode)) return [];
  return entry.listed.migDevices.map((listed) => {
    const device = entry.migDevices.find((d) => d.index === listed.index);
    return {
      index: parent.index,
      uuid: listed.uuid,
      name: parent.name,
      pciBusId: parent.pciBusId,
      memoryTotalMiB: device?.memoryTotalMiB ?? null,
      memoryUsedMiB: device?.memoryUsedMiB ?? null,
      utilizationGpuPct: null,
      utilizationMemoryPct: null,
      temperatureC: null,
      powerDrawW: null,
      powerLimitW: null,
      fanSpeedPct: null,
      smClockMHz: null,
      pstate: null,
      migMode: parent.migMode,
      eccErrorsUncorrected: parent.eccErrorsUncorrected,
      mig: {
        parentUuid: parent.uuid,
        profile: listed.profile,
        gpuInstanceId: device?.gpuInstanceId ?? 0,
        computeInstanceId: device?.computeInstanceId ?? 0,
        deviceIndex: listed.index,
      },
    };
  });
}

/** Slices placed after their parent, in MIG device order, so that a host's units read GPU by GPU. */
export function withSlices(gpus: GpuSample[], layout: MigLayout | null): GpuSample[] {
  if (!layout) return gpus;
  return gpus.flatMap((gpu) => [gpu, ...slicesOf(gpu, layout)]);
}

/**
 * The MIG UUID each process of a MIG GPU runs on, by pid: the report's
 * GPU and compute instance ids matched with the slice's. A process whose
 * instance has several compute instances but no compute instance id
 * matches none and stays on the parent GPU (visible, never lost).
 */
export function sliceOfProcess(slices: GpuSample[], layout: MigLayout | null): Map<string, Map<number, string>> {
  const placed = new Map<string, Map<number, string>>();
  if (!layout) return placed;
  for (const entry of layout.gpus) {
    const mine = slices.filter((slice) => slice.mig && key(slice.mig.parentUuid) === key(entry.uuid));
    if (mine.length === 0) continue;
    const byPid = new Map<number, string>();
    for (const process of entry.processes) {
      const exact = mine.filter((s) => s.mig!.gpuInstanceId === process.gpuInstanceId && s.mig!.computeInstanceId === process.computeInstanceId);
      const inInstance = mine.filter((s) => s.mig!.gpuInstanceId === process.gpuInstanceId);
      const slice = exact.length === 1 ? exact[0] : inInstance.length === 1 ? inInstance[0] : undefined;
      if (slice) byPid.set(process.pid, slice.uuid);
    }
    placed.set(key(entry.uuid), byPid);
  }
  return placed;
}

/** The processes with those of MIG GPUs moved onto their slice (their `gpuUuid` becomes the MIG UUID). */
export function placeProcesses<P extends { gpuUuid: string; pid: number }>(processes: P[], slices: GpuSample[], layout: MigLayout | null): P[] {
  const placed = sliceOfProcess(slices, layout);
  if (placed.size === 0) return processes;
  return processes.map((process) => {
    const slice = placed.get(key(process.gpuUuid))?.get(process.pid);
    return slice ? { ...process, gpuUuid: slice } : process;
  });
}
