import { describe, expect, it } from "vitest";
import type { DisplayGpu, FleetDelta, LiveGpu } from "@/lib/live/live";
import { applyDisplayDelta, applyDisplaySnapshot, initialDisplayFeedState } from "@/lib/live/display-feed";
import { pushChangedRow, readRow } from "@/lib/live/live-rows";
import { LIVE_FORMAT_VERSION, expandFleetDelta, type SlotTable } from "@/lib/live/live-wire";
import { MemberEncoder, SlotRegistry } from "@/server/live/member-encoder";
import { makeGpu } from "@/server/testing/factories";

const T0 = Date.parse("2026-12-01T10:00:00.000Z");

function gpu(uuid: string, overrides: Partial<LiveGpu> = {}): LiveGpu {
  // 300.4 W: the wire rounds power to what pages show.
  return { ...makeGpu({ uuid, powerDrawW: 300.4 }), hostId: "h1", hostName: "node-a", sampledAt: new Date(T0).toISOString(), processes: [], ...overrides };
}

function delta(at: number, gpus: LiveGpu[], extra: Partial<FleetDelta> = {}): FleetDelta {
  return { serverTime: new Date(at).toISOString(), hosts: [], gpus, points: {}, removedHostIds: [], ...extra };
}

describe("change rows", () => {
  it("carry the changed fields behind a mask and read back into the held tuple", () => {
    const out: (number | string | null)[] = [7];
    expect(pushChangedRow(out, [1, "a", null], [1, "b", 3])).toBe(true);
    expect(out).toEqual([7, 0b110, "b", 3]);
    const held: (number | string | null)[] = [1, "a", null];
    expect(readRow(out, 1, held, 3)).toBe(4);
    expect(held).toEqual([1, "b", 3]);
    expect(pushChangedRow([], [1], [1])).toBe(false);
    // A mask naming more fields than there are, or values missing: refused, not misread.
    expect(readRow([0b1000], 0, [0, 0, 0], 3)).toBe(-1);
    expect(readRow([0b11, 5], 0, [0, 0], 2)).toBe(-1);
  });
});

describe("the member scope's wire deltas", () => {
  it("expand to the readings the encoder was given, field by field, over many steps", () => {
    const encoder = new MemberEncoder(new SlotRegistry());
    const held: Record<string, LiveGpu> = {};
    const slots: SlotTable = {};
    const first = [gpu("GPU-a"), gpu("GPU-b", { index: 1 })];
    const snapshot = encoder.snapshot({ serverTime: new Date(T0).toISOString(), simulated: true, hosts: [], gpus: first, sparklines: {} });
    expect(snapshot.v).toBe(LIVE_FORMAT_VERSION);
    snapshot.gpus.forEach((entry, i) => {
      held[entry.uuid] = entry;
      slots[snapshot.slots[i]] = entry.uuid;
    });
    encoder.encode(delta(T0, first));

    const processA = { gpuUuid: "GPU-a", pid: 10, name: "python", usedMemoryMiB: 500.4, user: "alice", command: "python a.py", startedAt: null, container: null, slurmJobId: null, reservationId: null };
    const steps: LiveGpu[][] = [
      [gpu("GPU-a", { utilizationGpuPct: 77.7, sampledAt: new Date(T0 + 1000).toISOString() }), gpu("GPU-b", { index: 1, pstate: "P8", sampledAt: new Date(T0 + 900).toISOString() })],
      [gpu("GPU-a", { utilizationGpuPct: 77.7, processes: [processA], sampledAt: new Date(T0 + 2000).toISOString() })],
      [gpu("GPU-a", { utilizationGpuPct: 12, processes: [{ ...processA, usedMemoryMiB: 900 }], temperatureC: null, sampledAt: new Date(T0 + 3000).toISOString() })],
      // A fixed field changed (the host renamed): the GPU comes whole.
      [gpu("GPU-a", { hostName: "node-a2", utilizationGpuPct: 12, sampledAt: new Date(T0 + 4000).toISOString() })],
    ];
    steps.forEach((readings, i) => {
      const wire = JSON.parse(JSON.stringify(encoder.encode(delta(T0 + 1000 * (i + 1) + 50, readings))));
      const expanded = expandFleetDelta(wire, held, slots);
      for (const entry of expanded.gpus) held[entry.uuid] = entry;
      for (const reading of readings) {
        const got = held[reading.uuid];
        expect(got.sampledAt).toBe(reading.sampledAt);
        expect(got.hostName).toBe(reading.hostName);
        expect(got.utilizationGpuPct).toBe(reading.utilizationGpuPct === null ? null : Math.round(reading.utilizationGpuPct));
        expect(got.temperatureC).toBe(reading.temperatureC);
        expect(got.pstate).toBe(reading.pstate);
        expect(got.processes.map((process) => [process.pid, process.command, process.usedMemoryMiB])).toEqual(
          reading.processes.map((process) => [process.pid, process.command, Math.round(process.usedMemoryMiB ?? 0)]),
        );
      }
    });
  });

  it("carry a replayed buffer's points as rounded columns that expand to the same points", () => {
    const encoder = new MemberEncoder(new SlotRegistry());
    const slots: SlotTable = {};
    const held: Record<string, LiveGpu> = {};
    const first = gpu("GPU-r");
    const snapshot = encoder.snapshot({ serverTime: new Date(T0).toISOString(), simulated: true, hosts: [], gpus: [first], sparklines: {} });
    slots[snapshot.slots[0]] = first.uuid;
    held[first.uuid] = first;
    const points = [0, 1000, 2000].map((dt) => ({ t: T0 + dt, util: 10.4 + dt / 100, memUsedMiB: 1024, powerW: null, tempC: 55.6 }));
    const wire = JSON.parse(JSON.stringify(encoder.encode(delta(T0 + 2500, [first], { points: { [first.uuid]: points } }))));
    expect(JSON.stringify(wire.p)).not.toContain("util");
    expect(expandFleetDelta(wire, held, slots).points[first.uuid]).toEqual(
      points.map((point) => ({ ...point, util: Math.round(point.util), tempC: 56 })),
    );
  });

  it("are a small fraction of whole entries for a fleet whose readings move a little", () => {
    const encoder = new MemberEncoder(new SlotRegistry());
    const fleet = Array.from({ length: 1000 }, (_, i) => gpu(`GPU-${i}`, { index: i % 8, hostId: `h${i >> 3}`, hostName: `node-${i >> 3}` }));
    encoder.encode(delta(T0, fleet));
    const next = fleet.map((entry, i) => ({ ...entry, utilizationGpuPct: (i * 7) % 100, powerDrawW: 250 + (i % 50), sampledAt: new Date(T0 + 1000).toISOString() }));
    const wire = JSON.stringify(encoder.encode(delta(T0 + 1100, next)));
    const whole = JSON.stringify(delta(T0 + 1100, next));
    expect(wire.length / 1000).toBeLessThan(20);
    expect(wire.length).toBeLessThan(whole.length / 20);
  });
});

describe("the display feed", () => {
  const shown = (uuid: string, overrides: Partial<DisplayGpu> = {}): DisplayGpu => ({
    uuid,
    hostId: "h1",
    index: 0,
    model: "NVIDIA H100 80GB HBM3",
    state: "free",
    utilizationPct: 0,
    memoryUsedMiB: 0,
    memoryTotalMiB: 81559,
    temperatureC: 40,
    bookedByName: null,
    bookedUntil: null,
    ...overrides,
  });

  it("takes a snapshot whole, then rows by slot, new GPUs whole, hosts and the alert count", () => {
    const host = { id: "h1", name: "node-a", online: true, lastSeenAt: null, gpuUuids: ["GPU-a"] };
    let state = applyDisplaySnapshot(initialDisplayFeedState, { v: 2, serverTime: new Date(T0).toISOString(), simulated: false, hosts: [host], gpus: [shown("GPU-a")], slots: [4], openAlerts: 0 }, T0);
    // state (bit 0) and booker name and until (bits 5, 6) changed.
    state = applyDisplayDelta(state, { v: 2, t: T0 + 1000, r: [4, 0b1100001, "booked_idle", "Alice", "2026-12-01T12:00:00.000Z"], a: 2 }, T0 + 1000);
    expect(state.gpus["GPU-a"]).toMatchObject({ state: "booked_idle", bookedByName: "Alice", bookedUntil: "2026-12-01T12:00:00.000Z", utilizationPct: 0 });
    expect(state.openAlerts).toBe(2);
    state = applyDisplayDelta(
      state,
      { v: 2, t: T0 + 2000, h: [{ ...host, gpuUuids: ["GPU-a", "GPU-b"] }], n: [[9, shown("GPU-b", { index: 1 })]], r: [9, 0b10, 55] },
      T0 + 2000,
    );
    expect(state.gpus["GPU-b"]).toMatchObject({ index: 1, utilizationPct: 55 });
    expect(state.openAlerts).toBe(2);
    // The host goes: its GPUs with it.
    state = applyDisplayDelta(state, { v: 2, t: T0 + 3000, x: ["h1"] }, T0 + 3000);
    expect(state.hosts).toEqual([]);
    expect(state.gpus).toEqual({});
  });
});
