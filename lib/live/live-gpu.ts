import type { LiveGpu } from "@/lib/live/live";
import type { GpuSample, ProcessInfo } from "@/lib/domain/snapshot";

/**
 * The live entry of a GPU: a reading's fields with its host, sample time
 * and processes. The one place a LiveGpu is built, on the server from each
 * reading (server/fleet/fleet-state.ts) and in every viewer from each delta
 * (lib/live/live-wire.ts). Every field is named rather than spread: a spread of
 * objects of many shapes is several times slower than one literal of one
 * shape, and a spread grown by four fields cost more than the rest of the
 * ingest. A field added to LiveGpu must be added here (the compiler says so).
 */
export function liveGpuOf(sample: GpuSample, hostId: string, hostName: string, sampledAt: string, processes: ProcessInfo[]): LiveGpu {
  return {
    index: sample.index,
    uuid: sample.uuid,
    name: sample.name,
    pciBusId: sample.pciBusId,
    memoryTotalMiB: sample.memoryTotalMiB,
    memoryUsedMiB: sample.memoryUsedMiB,
    utilizationGpuPct: sample.utilizationGpuPct,
    utilizationMemoryPct: sample.utilizationMemoryPct,
    temperatureC: sample.temperatureC,
    powerDrawW: sample.powerDrawW,
    powerLimitW: sample.powerLimitW,
    fanSpeedPct: sample.fanSpeedPct,
    smClockMHz: sample.smClockMHz,
    pstate: sample.pstate,
    migMode: sample.migMode,
    eccErrorsUncorrected: sample.eccErrorsUncorrected,
    mig: sample.mig ?? null,
    hostId,
    hostName,
    sampledAt,
    processes,
  };
}
