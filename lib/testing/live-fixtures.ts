import type { LiveBooking, LiveGpu } from "@/lib/live/live";

/**
 * A live GPU reading for tests of the pages' rules: an idle H100 of host
 * "h1" ("node-a") with one process per login in `users` (pids from
 * index × 100), each running `python train-<login>.py`.
 */
export function liveGpuFixture(uuid: string, users: string[] = [], overrides: Partial<LiveGpu> = {}): LiveGpu {
  const index = overrides.index ?? 0;
  return {
    index,
    uuid,
    name: "NVIDIA H100 80GB HBM3",
    pciBusId: null,
    memoryTotalMiB: 81559,
    memoryUsedMiB: 0,
    utilizationGpuPct: 0,
    utilizationMemoryPct: 0,
    temperatureC: 40,
    powerDrawW: 70,
    powerLimitW: 700,
    fanSpeedPct: null,
    smClockMHz: null,
    pstate: "P0",
    migMode: null,
    eccErrorsUncorrected: 0,
    hostId: "h1",
    hostName: "node-a",
    sampledAt: "2026-12-01T10:00:00Z",
    processes: users.map((user, i) => ({
      gpuUuid: uuid,
      pid: index * 100 + i,
      name: "python",
      usedMemoryMiB: 1000,
      user,
      command: `python train-${user}.py`,
      startedAt: null,
      container: null,
      slurmJobId: null,
      reservationId: null,
    })),
    ...overrides,
  };
}

/** A live booking of host "h1" ("node-a") from 09:00 to 12:00 UTC on 2026-12-01, of these GPUs, held by `bookedBy`. */
export function liveBookingFixture(gpus: { uuid: string; index: number }[], bookedBy: LiveBooking["bookedBy"], overrides: Partial<LiveBooking> = {}): LiveBooking {
  return {
    reservationId: "r1",
    hostId: "h1",
    hostName: "node-a",
    gpus,
    bookedBy,
    startsAt: "2026-12-01T09:00:00Z",
    endsAt: "2026-12-01T12:00:00Z",
    purpose: "",
    ...overrides,
  };
}
