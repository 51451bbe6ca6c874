import { describe, expect, it } from "vitest";
import { applyGpuDelta, applyGpuSnapshot, initialGpuScopeState, withGpuScopeStatus, type GpuScopeState } from "@/lib/live/gpu-scope-state";
import type { LiveHost } from "@/lib/live/live";
import { LIVE_FORMAT_VERSION, type GpuDeltaWire, type GpuSnapshotWire } from "@/lib/live/live-wire";
import { liveBookingFixture, liveGpuFixture } from "@/lib/testing/live-fixtures";

const T0 = Date.parse("2026-12-01T10:00:00Z");
const UUID = "GPU-a";
const SLOT = 7;
const UTIL = 1 << 0;
const MEMORY = 1 << 1;

const host: LiveHost = {
  id: "h1",
  name: "node-a",
  simulated: true,
  online: true,
  lastSeenAt: new Date(T0).toISOString(),
  driverVersion: "550.54",
  cudaVersion: "12.4",
  gpuUuids: [UUID],
};

/** A snapshot of GPU-a at `t` with one point a second for the `count` seconds before it. */
function snapshot(t: number, count: number, overrides: Partial<GpuSnapshotWire> = {}): GpuSnapshotWire {
  const offsets = Array.from({ length: count }, (_, i) => (i - count + 1) * 1000);
  return {
    v: LIVE_FORMAT_VERSION,
    u: UUID,
    serverTime: new Date(t).toISOString(),
    simulated: true,
    slot: SLOT,
    gpu: liveGpuFixture(UUID, ["alice"], { memoryUsedMiB: 2048, sampledAt: new Date(t).toISOString() }),
    host,
    history: [offsets, offsets.map(() => 50), offsets.map(() => 2048), offsets.map(() => 300), offsets.map(() => 60)],
    state: null,
    bookings: [],
    ...overrides,
  };
}

/** A delta of one reading taken at `t` with these masked values. */
function reading(t: number, mask: number, values: (number | null)[], overrides: Partial<GpuDeltaWire> = {}): GpuDeltaWire {
  return { v: LIVE_FORMAT_VERSION, t, u: UUID, r: [[0, SLOT, mask, ...values]], ...overrides };
}

function watched(): GpuScopeState {
  return applyGpuSnapshot(initialGpuScopeState(UUID), snapshot(T0, 3), T0);
}

describe("the GPU page's scope state", () => {
  it("takes its GPU, host and 15 minutes of every chart's points from the snapshot", () => {
    const state = watched();
    expect(state).toMatchObject({ status: "live", hasSnapshot: true, host, bookings: [] });
    expect(state.gpu?.memoryUsedMiB).toBe(2048);
    expect(state.points.map((point) => point.t)).toEqual([T0 - 2000, T0 - 1000, T0]);
    expect(state.points.every((point) => point.util === 50 && point.memUsedMiB === 2048 && point.powerW === 300 && point.tempC === 60)).toBe(true);
  });

  it("adds a point per reading with every chart's value, the unchanged ones from the GPU it holds", () => {
    let state = watched();
    state = applyGpuDelta(state, reading(T0 + 1000, UTIL, [91]), T0 + 1000);
    state = applyGpuDelta(state, reading(T0 + 2000, MEMORY, [4096]), T0 + 2000);
    expect(state.points.slice(-2)).toEqual([
      { t: T0 + 1000, util: 91, memUsedMiB: 2048, powerW: 70, tempC: 40 },
      { t: T0 + 2000, util: 91, memUsedMiB: 4096, powerW: 70, tempC: 40 },
    ]);
    expect(state.gpu).toMatchObject({ utilizationGpuPct: 91, memoryUsedMiB: 4096 });
  });

  it("ignores another GPU's messages and deltas before its snapshot", () => {
    const fresh = initialGpuScopeState(UUID);
    expect(applyGpuDelta(fresh, reading(T0, UTIL, [91]), T0)).toBe(fresh);
    expect(applyGpuSnapshot(fresh, snapshot(T0, 3, { u: "GPU-b" }), T0)).toBe(fresh);
    const state = watched();
    expect(applyGpuDelta(state, reading(T0 + 1000, UTIL, [91], { u: "GPU-b" }), T0 + 1000)).toBe(state);
  });

  it("starts again from a reconnect's snapshot: no gap, no duplicate point", () => {
    let state = applyGpuDelta(watched(), reading(T0 + 1000, UTIL, [91]), T0 + 1000);
    state = withGpuScopeStatus(state, "reconnecting");
    // Offline for five seconds; the new snapshot's history covers them.
    state = applyGpuSnapshot(state, snapshot(T0 + 6000, 9), T0 + 6000);
    expect(state.status).toBe("live");
    expect(state.points.map((point) => point.t - T0)).toEqual([-2000, -1000, 0, 1000, 2000, 3000, 4000, 5000, 6000]);
    // A reading the snapshot already holds adds nothing; the next one adds one point.
    state = applyGpuDelta(state, reading(T0 + 6000, UTIL, [10]), T0 + 6100);
    state = applyGpuDelta(state, reading(T0 + 7000, UTIL, [20]), T0 + 7000);
    expect(state.points.map((point) => point.t - T0).slice(-3)).toEqual([5000, 6000, 7000]);
  });

  it("loses its GPU when the host drops it or goes away", () => {
    const dropped = applyGpuDelta(watched(), { v: LIVE_FORMAT_VERSION, t: T0 + 1000, u: UUID, h: [{ ...host, gpuUuids: [] }] }, T0 + 1000);
    expect(dropped.gpu).toBeNull();
    const removed = applyGpuDelta(watched(), { v: LIVE_FORMAT_VERSION, t: T0 + 1000, u: UUID, x: [host.id] }, T0 + 1000);
    expect(removed).toMatchObject({ gpu: null, host: null });
  });

  it("replaces its bookings when a delta brings them and keeps them otherwise", () => {
    const booking = liveBookingFixture([{ uuid: UUID, index: 0 }], { id: "u-alice", username: "alice", name: "Alice" });
    let state = applyGpuDelta(watched(), { v: LIVE_FORMAT_VERSION, t: T0 + 1000, u: UUID, b: [booking] }, T0 + 1000);
    expect(state.bookings).toEqual([booking]);
    state = applyGpuDelta(state, reading(T0 + 2000, UTIL, [5]), T0 + 2000);
    expect(state.bookings).toEqual([booking]);
  });
});
