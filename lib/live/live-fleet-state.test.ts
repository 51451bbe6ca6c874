import { describe, expect, it } from "vitest";
import { appendPoints, applyDelta, applySnapshot, gpusOfHost, initialLiveFleetState, showsSimulated } from "@/lib/live/live-fleet-state";
import type { FleetDelta, FleetSnapshot, GpuPoint, LiveGpu, LiveHost } from "@/lib/live/live";
import { columnsOfPoints } from "@/lib/live/live-points";

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

function makeHost(overrides: Partial<LiveHost> = {}): LiveHost {
  return {
    id: unique("host"),
    name: unique("node"),
    simulated: true,
    online: true,
    lastSeenAt: "2026-03-03T12:00:00Z",
    driverVersion: "580.65.06",
    cudaVersion: "13.0",
    gpuUuids: [],
    ...overrides,
  };
}

function makeGpu(host: LiveHost, overrides: Partial<LiveGpu> = {}): LiveGpu {
  return {
    index: 0,
    uuid: unique("GPU"),
    name: "NVIDIA H200",
    pciBusId: "00000000:18:00.0",
    memoryTotalMiB: 143771,
    memoryUsedMiB: 1024,
    utilizationGpuPct: 10,
    utilizationMemoryPct: 5,
    temperatureC: 40,
    powerDrawW: 120,
    powerLimitW: 700,
    fanSpeedPct: null,
    smClockMHz: 1980,
    pstate: "P0",
    migMode: "Disabled",
    eccErrorsUncorrected: 0,
    hostId: host.id,
    hostName: host.name,
    sampledAt: "2026-03-03T12:00:00Z",
    processes: [],
    ...overrides,
  };
}

const points = (from: number, count: number): GpuPoint[] =>
  Array.from({ length: count }, (_, i) => ({ t: from + i * 1000, util: i, memUsedMiB: 1, powerW: 1, tempC: 1 }));

function fleetWith(host: LiveHost, gpus: LiveGpu[], sparkline: GpuPoint[] = []) {
  host.gpuUuids = gpus.map((gpu) => gpu.uuid);
  const snapshot: FleetSnapshot = {
    serverTime: "2026-03-03T12:00:00Z",
    simulated: true,
    hosts: [host],
    gpus,
    sparklines: Object.fromEntries(gpus.map((gpu) => [gpu.uuid, columnsOfPoints(sparkline)])),
  };
  return applySnapshot(initialLiveFleetState, snapshot, Date.parse("2026-03-03T12:00:02Z"));
}

const emptyDelta = (): FleetDelta => ({
  serverTime: "2026-03-03T12:00:01Z",
  hosts: [],
  gpus: [],
  points: {},
  removedHostIds: [],
});

describe("appendPoints", () => {
  it("keeps the newest points up to the cap", () => {
    const result = appendPoints(points(0, 59), points(59_000, 5), 60);
    expect(result).toHaveLength(60);
    expect(result[59].t).toBe(63_000);
    expect(result[0].t).toBe(4_000);
  });

  it("drops points at or before the last held time", () => {
    const held = points(0, 3);
    expect(appendPoints(held, points(1_000, 2), 60)).toBe(held);
    expect(appendPoints(held, points(2_000, 3), 60).map((p) => p.t)).toEqual([0, 1000, 2000, 3000, 4000]);
  });
});

describe("applySnapshot", () => {
  it("replaces everything, sorts hosts by name and records the clock offset", () => {
    const host = makeHost({ name: "node-b" });
    const gpu = makeGpu(host);
    const state = fleetWith(host, [gpu], points(0, 70));
    expect(state.status).toBe("live");
    expect(state.hasSnapshot).toBe(true);
    expect(state.gpus[gpu.uuid]).toBe(gpu);
    expect(state.sparklines[gpu.uuid]).toHaveLength(60);
    expect(state.sparklines[gpu.uuid][0]).toEqual({ t: 10_000, util: 10, memUsedMiB: null, powerW: null, tempC: null });
    expect(state.clockOffsetMs).toBe(-2000);

    const other = makeHost({ name: "node-a" });
    const next = applySnapshot(
      state,
      { serverTime: "2026-03-03T12:01:00Z", simulated: false, hosts: [host, other], gpus: [], sparklines: {} },
      0,
    );
    expect(next.hosts.map((h) => h.name)).toEqual(["node-a", "node-b"]);
    expect(next.gpus).toEqual({});
    expect(next.simulated).toBe(false);
  });
});

describe("applyDelta", () => {
  it("is ignored before the first snapshot", () => {
    expect(applyDelta(initialLiveFleetState, emptyDelta(), 1)).toBe(initialLiveFleetState);
  });

  it("merges hosts by id and GPUs by UUID and appends sparkline points", () => {
    const host = makeHost();
    const gpu0 = makeGpu(host, { index: 0 });
    const gpu1 = makeGpu(host, { index: 1 });
    const state = fleetWith(host, [gpu0, gpu1], points(0, 60));

    const delta = emptyDelta();
    delta.hosts = [{ ...host, online: false }];
    delta.gpus = [{ ...gpu1, utilizationGpuPct: 99 }];
    delta.points = { [gpu1.uuid]: points(60_000, 1) };
    const next = applyDelta(state, delta, 5);

    expect(next.hosts).toHaveLength(1);
    expect(next.hosts[0].online).toBe(false);
    expect(next.gpus[gpu0.uuid]).toBe(gpu0);
    expect(next.gpus[gpu1.uuid].utilizationGpuPct).toBe(99);
    expect(next.sparklines[gpu1.uuid]).toHaveLength(60);
    expect(next.sparklines[gpu1.uuid].at(-1)?.t).toBe(60_000);
    expect(next.sparklines[gpu0.uuid]).toBe(state.sparklines[gpu0.uuid]);
    expect(next.lastUpdateAt).toBe(5);
    expect(gpusOfHost(next, next.hosts[0]).map((g) => g.index)).toEqual([0, 1]);
  });

  it("drops removed hosts with their GPUs, and GPUs no host lists any more", () => {
    const host = makeHost();
    const gpu0 = makeGpu(host, { index: 0 });
    const gpu1 = makeGpu(host, { index: 1 });
    const state = fleetWith(host, [gpu0, gpu1]);

    const shrink = emptyDelta();
    shrink.hosts = [{ ...host, gpuUuids: [gpu0.uuid] }];
    const shrunk = applyDelta(state, shrink, 1);
    expect(Object.keys(shrunk.gpus)).toEqual([gpu0.uuid]);
    expect(shrunk.sparklines[gpu1.uuid]).toBeUndefined();

    const remove = emptyDelta();
    remove.removedHostIds = [host.id];
    const removed = applyDelta(shrunk, remove, 2);
    expect(removed.hosts).toEqual([]);
    expect(removed.gpus).toEqual({});
  });
  it("advances a host's last seen to the newest reading of its GPUs when the delta does not carry the host", () => {
    const host = makeHost({ lastSeenAt: "2026-03-03T12:00:00.000Z" });
    const gpu0 = makeGpu(host, { index: 0 });
    const gpu1 = makeGpu(host, { index: 1 });
    const state = fleetWith(host, [gpu0, gpu1]);

    const delta = emptyDelta();
    delta.gpus = [
      { ...gpu0, sampledAt: "2026-03-03T12:00:05.000Z" },
      { ...gpu1, sampledAt: "2026-03-03T12:00:04.000Z" },
    ];
    const next = applyDelta(state, delta, 1);
    expect(next.hosts[0]).toEqual({ ...host, lastSeenAt: "2026-03-03T12:00:05.000Z" });

    const older = emptyDelta();
    older.gpus = [{ ...gpu1, sampledAt: "2026-03-03T12:00:03.000Z" }];
    expect(applyDelta(next, older, 2).hosts[0]).toBe(next.hosts[0]);

    const offline = emptyDelta();
    offline.hosts = [{ ...host, online: false, lastSeenAt: "2026-03-03T12:00:05.000Z" }];
    expect(applyDelta(next, offline, 3).hosts[0]).toMatchObject({ online: false, lastSeenAt: "2026-03-03T12:00:05.000Z" });
  });
  it("makes the new sparkline point from a GPU entry that comes without points", () => {
    const host = makeHost();
    const gpu = makeGpu(host);
    const state = fleetWith(host, [gpu], points(Date.parse("2026-03-03T11:59:00Z"), 60));

    const delta = emptyDelta();
    delta.gpus = [{ ...gpu, sampledAt: "2026-03-03T12:00:00.000Z", utilizationGpuPct: 77, memoryUsedMiB: 2048, powerDrawW: 300, temperatureC: 55 }];
    const sparkline = applyDelta(state, delta, 1).sparklines[gpu.uuid];
    expect(sparkline).toHaveLength(60);
    expect(sparkline.at(-1)).toEqual({ t: Date.parse("2026-03-03T12:00:00Z"), util: 77, memUsedMiB: 2048, powerW: 300, tempC: 55 });
  });
  it("after a first delta, moves only the sparklines of the GPUs a reading brings and keeps the others as they were", () => {
    const host = makeHost();
    const gpu0 = makeGpu(host, { index: 0 });
    const gpu1 = makeGpu(host, { index: 1 });
    const start = Date.parse("2026-03-03T11:59:00Z");
    const state = fleetWith(host, [gpu0, gpu1], points(start, 60));
    const reading = (gpu: LiveGpu, seconds: number, util: number) => {
      const delta = emptyDelta();
      delta.gpus = [{ ...gpu, sampledAt: new Date(start + seconds * 1000).toISOString(), utilizationGpuPct: util }];
      return delta;
    };
    // The first delta after the snapshot, then the usual ones: the same readings must give the same state.
    const first = applyDelta(state, reading(gpu0, 60, 1), 1);
    const second = applyDelta(first, reading(gpu0, 61, 2), 2);
    const third = applyDelta(second, reading(gpu1, 61, 3), 3);
    expect(third.sparklines[gpu0.uuid]?.map((point) => point.util).slice(-2)).toEqual([1, 2]);
    expect(third.sparklines[gpu0.uuid]).toBe(second.sparklines[gpu0.uuid]);
    expect(third.sparklines[gpu1.uuid]?.at(-1)).toMatchObject({ t: start + 61_000, util: 3 });
    expect(third.sparklines[gpu1.uuid]).toHaveLength(60);
    expect(Object.keys(third.sparklines).sort()).toEqual([gpu0.uuid, gpu1.uuid].sort());
    expect(third.gpus[gpu1.uuid]?.utilizationGpuPct).toBe(3);
    // A GPU that no host lists is still dropped after a run of usual deltas.
    const shrink = emptyDelta();
    shrink.hosts = [{ ...host, gpuUuids: [gpu0.uuid] }];
    expect(Object.keys(applyDelta(third, shrink, 4).sparklines)).toEqual([gpu0.uuid]);
  });
});

describe("showsSimulated", () => {
  it("says 'Simulated fleet' while a simulated host is on the page, and not once the demo's hosts are gone", () => {
    const sim = { simulated: true };
    const real = { simulated: false };
    expect(showsSimulated({ simulated: true, hosts: [sim, real] })).toBe(true);
    expect(showsSimulated({ simulated: true, hosts: [real] })).toBe(false);
    expect(showsSimulated({ simulated: false, hosts: [sim] })).toBe(false);
  });
});
