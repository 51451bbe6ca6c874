import { describe, expect, it } from "vitest";
import { FleetState } from "@/server/fleet/fleet-state";
import { makeGpu, makeProcess, makeSnapshot } from "@/server/testing/factories";

function setup(start = Date.parse("2026-11-30T10:00:00Z")) {
  let now = start;
  const fleet = new FleetState({ offlineAfterMs: 5000, simulated: false, now: () => now });
  return { fleet, advance: (ms: number) => (now += ms), at: () => now };
}

describe("FleetState", () => {
  it("stops saying 'simulated' once the demo ends while the server runs (snapshots and the flag the wall reads)", () => {
    const fleet = new FleetState({ offlineAfterMs: 5000, simulated: true });
    fleet.connectHost("sim", "sim-h100-a", true);
    expect(fleet.snapshot().simulated).toBe(true);
    fleet.removeHost("sim");
    fleet.endSimulation();
    expect(fleet.simulated).toBe(false);
    expect(fleet.snapshot().simulated).toBe(false);
  });

  it("shows a host online with its GPUs and processes after its first sample", () => {
    const { fleet, at } = setup();
    const gpu0 = makeGpu({ index: 0 });
    const gpu1 = makeGpu({ index: 1 });
    fleet.connectHost("h1", "node-a", false);
    expect(fleet.snapshot().hosts[0]).toMatchObject({ name: "node-a", online: false });

    fleet.ingest("h1", makeSnapshot([gpu1, gpu0], at(), { processes: [makeProcess(gpu1, { pid: 7 })] }));
    const snapshot = fleet.snapshot();
    expect(snapshot.hosts[0]).toMatchObject({ online: true, gpuUuids: [gpu0.uuid, gpu1.uuid], driverVersion: "580.159.04" });
    const live1 = snapshot.gpus.find((gpu) => gpu.uuid === gpu1.uuid);
    expect(live1?.processes.map((process) => process.pid)).toEqual([7]);
    expect(live1?.hostName).toBe("node-a");
  });

  it("coalesces several samples of a GPU into one delta entry with the latest values", () => {
    const { fleet, at, advance } = setup();
    const gpu = makeGpu();
    fleet.connectHost("h1", "node-a", false);
    fleet.ingest("h1", makeSnapshot([{ ...gpu, utilizationGpuPct: 10 }], at()));
    fleet.drainDelta();
    advance(300);
    fleet.ingest("h1", makeSnapshot([{ ...gpu, utilizationGpuPct: 20 }], at()));
    advance(300);
    fleet.ingest("h1", makeSnapshot([{ ...gpu, utilizationGpuPct: 30 }], at()));

    const delta = fleet.drainDelta();
    expect(delta?.gpus).toHaveLength(1);
    expect(delta?.gpus[0].utilizationGpuPct).toBe(30);
    expect(delta?.points[gpu.uuid].map((point) => point.util)).toEqual([20, 30]);
    expect(fleet.drainDelta()).toBeNull();
  });

  it("marks a silent host offline after the limit, and at once when its agent disconnects", () => {
    const { fleet, at, advance } = setup();
    fleet.connectHost("h1", "node-a", false);
    fleet.connectHost("h2", "node-b", false);
    fleet.ingest("h1", makeSnapshot([makeGpu()], at()));
    fleet.ingest("h2", makeSnapshot([makeGpu()], at()));
    advance(4000);
    fleet.checkOffline();
    expect(fleet.snapshot().hosts.every((host) => host.online)).toBe(true);
    advance(2000);
    fleet.ingest("h2", makeSnapshot([makeGpu()], at()));
    fleet.checkOffline();
    expect(fleet.snapshot().hosts.map((host) => [host.name, host.online])).toEqual([
      ["node-a", false],
      ["node-b", true],
    ]);
    fleet.disconnectHost("h2");
    expect(fleet.snapshot().hosts[1].online).toBe(false);
  });

  it("files replayed old samples into history without rolling the live values back", () => {
    const { fleet, at, advance } = setup();
    const gpu = makeGpu();
    fleet.connectHost("h1", "node-a", false);
    const t0 = at();
    fleet.ingest("h1", makeSnapshot([{ ...gpu, utilizationGpuPct: 90 }], t0 + 3000));
    const result = fleet.ingest("h1", makeSnapshot([{ ...gpu, utilizationGpuPct: 5 }], t0 + 1000));
    advance(3000);
    expect(result.live).toBe(false);
    expect(fleet.snapshot().gpus[0].utilizationGpuPct).toBe(90);
    expect(fleet.history(gpu.uuid)?.points.map((point) => point.util)).toEqual([5, 90]);
  });

  it("keeps 15 minutes of history per GPU", () => {
    const { fleet, at, advance } = setup();
    const gpu = makeGpu();
    fleet.connectHost("h1", "node-a", false);
    for (let second = 0; second < 1200; second += 1) {
      fleet.ingest("h1", makeSnapshot([{ ...gpu, utilizationGpuPct: second % 100 }], at()));
      advance(1000);
    }
    const points = fleet.history(gpu.uuid)?.points ?? [];
    expect(points.length).toBeLessThanOrEqual(900);
    expect(points.length).toBeGreaterThan(890);
    expect(at() - points[0].t).toBeLessThanOrEqual(900_000);
  });

  it("drops a GPU that left the host's inventory", () => {
    const { fleet, at } = setup();
    const gpu0 = makeGpu({ index: 0 });
    const gpu1 = makeGpu({ index: 1 });
    fleet.connectHost("h1", "node-a", false);
    fleet.ingest("h1", makeSnapshot([gpu0, gpu1], at()));
    const result = fleet.ingest("h1", makeSnapshot([gpu0], at() + 1000));
    expect(result.inventoryChanged).toBe(true);
    expect(fleet.snapshot().gpus.map((gpu) => gpu.uuid)).toEqual([gpu0.uuid]);
    expect(fleet.history(gpu1.uuid)).toBeNull();
  });
  it("sends a host with a delta only when something shown of it changed, not for each sample", () => {
    const { fleet, at, advance } = setup();
    const gpu = makeGpu();
    fleet.connectHost("h1", "node-a", false);
    fleet.ingest("h1", makeSnapshot([gpu], at()));
    expect(fleet.drainDelta()?.hosts.map((host) => host.id)).toEqual(["h1"]);

    advance(1000);
    fleet.ingest("h1", makeSnapshot([gpu], at()));
    const quiet = fleet.drainDelta();
    expect(quiet?.hosts).toEqual([]);
    expect(quiet?.gpus[0].sampledAt).toBe(new Date(at()).toISOString());

    advance(1000);
    fleet.ingest("h1", makeSnapshot([gpu], at(), { host: { name: "node-test", driverVersion: "590.1", cudaVersion: "13.1" } }));
    expect(fleet.drainDelta()?.hosts[0]).toMatchObject({ driverVersion: "590.1" });
  });

  it("sends the offline transition with the time of the last sample", () => {
    const { fleet, at, advance } = setup();
    const gpu = makeGpu();
    fleet.connectHost("h1", "node-a", false);
    fleet.ingest("h1", makeSnapshot([gpu], at()));
    fleet.drainDelta();
    advance(1000);
    const last = at();
    fleet.ingest("h1", makeSnapshot([gpu], last));
    fleet.drainDelta();
    advance(10_000);
    fleet.checkOffline();
    expect(fleet.drainDelta()?.hosts).toEqual([expect.objectContaining({ id: "h1", online: false, lastSeenAt: new Date(last).toISOString() })]);
  });
  it("leaves out the point that only repeats a GPU's latest reading, and sends points for a GPU with more", () => {
    const { fleet, at, advance } = setup();
    const quiet = makeGpu({ index: 0 });
    const busy = makeGpu({ index: 1 });
    fleet.connectHost("h1", "node-a", false);
    fleet.connectHost("h2", "node-b", false);
    fleet.ingest("h1", makeSnapshot([quiet], at()));
    fleet.ingest("h2", makeSnapshot([busy], at()));
    fleet.drainDelta();

    advance(1000);
    fleet.ingest("h1", makeSnapshot([{ ...quiet, utilizationGpuPct: 40 }], at()));
    fleet.ingest("h2", makeSnapshot([{ ...busy, utilizationGpuPct: 50 }], at()));
    advance(1000);
    fleet.ingest("h2", makeSnapshot([{ ...busy, utilizationGpuPct: 60 }], at()));
    const delta = fleet.drainDelta();
    expect(delta?.gpus.map((gpu) => gpu.utilizationGpuPct).sort()).toEqual([40, 60]);
    expect(Object.keys(delta?.points ?? {})).toEqual([busy.uuid]);
    expect(delta?.points[busy.uuid].map((point) => point.util)).toEqual([50, 60]);
  });
  it("puts the last minute of utilization in the snapshot as compact columns", () => {
    const { fleet, at, advance } = setup();
    const gpu = makeGpu();
    fleet.connectHost("h1", "node-a", false);
    const start = at();
    for (let second = 0; second < 70; second += 1) {
      fleet.ingest("h1", makeSnapshot([{ ...gpu, utilizationGpuPct: second }], at()));
      advance(1000);
    }
    const columns = fleet.snapshot().sparklines[gpu.uuid];
    expect(columns.t).toEqual([start + 10_000, ...Array<number>(59).fill(1000)]);
    expect(columns.util).toEqual(Array.from({ length: 60 }, (_, i) => i + 10));
  });

  it("tells of each host change other than a reading, once, so that the live feed need not wait for the tick", () => {
    const { fleet, at, advance } = setup();
    let told = 0;
    const stop = fleet.onHostChange(() => (told += 1));
    fleet.connectHost("h1", "node-a", false);
    expect(told).toBe(1);
    fleet.ingest("h1", makeSnapshot([makeGpu()], at()));
    expect(told).toBe(2);
    advance(1000);
    fleet.ingest("h1", makeSnapshot([makeGpu()], at()));
    expect(told).toBe(2);
    fleet.disconnectHost("h1");
    expect(told).toBe(3);
    fleet.removeHost("h1");
    expect(told).toBe(4);
    stop();
    fleet.connectHost("h2", "node-b", false);
    expect(told).toBe(4);
  });
});

