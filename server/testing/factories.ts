import { randomUUID } from "node:crypto";
import type { GpuSample, ProcessInfo, Snapshot } from "@/lib/domain/snapshot";
import type { MinuteRow } from "@/server/minutes/minute-row";

let counter = 0;

/** A unique GPU UUID in nvidia-smi's format. */
export function gpuUuid(): string {
  return `GPU-${randomUUID()}`;
}

export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

/**
 * A GPU that holds no memory, so that without a process it is free: memory
 * held with no process listed is use nobody can see (lib/domain/gpu-availability.ts),
 * while its utilization alone does not count without a context's memory.
 */
export function makeGpu(overrides: Partial<GpuSample> = {}): GpuSample {
  return {
    index: 0,
    uuid: gpuUuid(),
    name: "NVIDIA H100 80GB HBM3",
    pciBusId: "00000000:17:00.0",
    memoryTotalMiB: 81559,
    memoryUsedMiB: 0,
    utilizationGpuPct: 50,
    utilizationMemoryPct: 20,
    temperatureC: 55,
    powerDrawW: 300,
    powerLimitW: 700,
    fanSpeedPct: null,
    smClockMHz: 1980,
    pstate: "P0",
    migMode: "Disabled",
    eccErrorsUncorrected: 0,
    ...overrides,
  };
}

export function makeProcess(gpu: GpuSample, overrides: Partial<ProcessInfo> = {}): ProcessInfo {
  return {
    gpuUuid: gpu.uuid,
    pid: 4242,
    name: "python",
    usedMemoryMiB: 1000,
    user: "alice",
    command: "python train.py",
    startedAt: "2026-11-30T08:00:00.000Z",
    container: null,
    slurmJobId: null,
    reservationId: null,
    ...overrides,
  };
}

export function makeSnapshot(gpus: GpuSample[], at: number, overrides: Partial<Snapshot> = {}): Snapshot {
  return {
    host: { name: "node-test", driverVersion: "580.159.04", cudaVersion: "13.0" },
    gpus,
    processes: [],
    sampledAt: new Date(at).toISOString(),
    ...overrides,
  };
}

/** The measures a minute has when nothing read them: what a row written with only its keys and samples holds. */
export const NO_READINGS = { utilAvg: null, utilMax: null, memUsedAvg: null, memUsedMax: null, memTotal: null, powerAvg: null, tempAvg: null, tempMax: null } satisfies Partial<MinuteRow>;

/** One stored GPU-minute with plausible readings; `overrides` sets what a test is about. */
export function makeMinuteRow(gpuUuid: string, hostId: string, minuteMs: number, overrides: Partial<MinuteRow> = {}): MinuteRow {
  return {
    gpuUuid,
    minute: new Date(minuteMs),
    hostId,
    samples: 60,
    utilAvg: 0,
    utilMax: 0,
    memUsedAvg: 1000,
    memUsedMax: 1000,
    memTotal: 81559,
    powerAvg: 100,
    tempAvg: 40,
    tempMax: 41,
    bookedByUserId: null,
    busy: false,
    simulated: false,
    ...overrides,
  };
}

/** A stored minute of one GPU: an H100 at 50 % with 12 readings, nobody booked, no process; `overrides` says the rest. */
export function makeReadMinute(gpuUuid: string, minuteMs: number, overrides: Partial<MinuteRow> = {}): MinuteRow {
  return makeMinuteRow(gpuUuid, "host-minutes", minuteMs, { samples: 12, utilAvg: 50, utilMax: 60, memUsedMax: 2000, powerAvg: 250, tempAvg: 60, tempMax: 70, ...overrides });
}
