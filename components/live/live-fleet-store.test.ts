import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { FleetSnapshot } from "@/lib/live/live";

/** Just enough of a socket.io client socket: handlers by event, and the `active` flag. */
class FakeSocket {
  handlers = new Map<string, Set<(...args: unknown[]) => void>>();
  active = false;
  connected = false;
  connect = vi.fn(() => {
    this.active = true;
  });
  disconnect = vi.fn(() => {
    this.active = false;
    this.connected = false;
  });
  on(event: string, handler: (...args: unknown[]) => void) {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event)!.add(handler);
    return this;
  }
  off(event: string, handler: (...args: unknown[]) => void) {
    this.handlers.get(event)?.delete(handler);
    return this;
  }
  emitFromServer(event: string, ...args: unknown[]) {
    for (const handler of this.handlers.get(event) ?? []) handler(...args);
  }
  listenerCount() {
    return [...this.handlers.values()].reduce((sum, set) => sum + set.size, 0);
  }
}

let socket: FakeSocket;
let holds = 0;
const follows: boolean[] = [];
// The socket's bookers are counted in components/live/live-socket.ts; here the one booker is the store.
vi.mock("@/components/live/live-socket", () => ({
  getLiveSocket: () => socket,
  setLiveSocketFollowsFleet: (follow: boolean) => follows.push(follow),
  retainLiveSocket: () => {
    holds += 1;
    if (holds === 1) socket.connect();
    return () => {
      holds -= 1;
      if (holds === 0) socket.disconnect();
    };
  },
}));

const snapshot = (): FleetSnapshot => ({
  serverTime: new Date().toISOString(),
  simulated: true,
  hosts: [],
  gpus: [],
  sparklines: {},
});

describe("live fleet store", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.resetModules();
    socket = new FakeSocket();
    holds = 0;
    follows.length = 0;
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("connects once for many bookers, is live after the snapshot, and closes after the last release", async () => {
    const store = await import("@/components/live/live-fleet-store");
    const releaseA = store.retainLiveFleet();
    const releaseB = store.retainLiveFleet();
    expect(socket.connect).toHaveBeenCalledTimes(1);
    expect(store.getFleetState().status).toBe("connecting");

    socket.emitFromServer("fleet:snapshot", snapshot());
    expect(store.getFleetState().status).toBe("live");
    expect(store.getFleetState().hasSnapshot).toBe(true);

    releaseA();
    releaseB();
    vi.advanceTimersByTime(4_000);
    expect(socket.disconnect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2_000);
    expect(socket.disconnect).toHaveBeenCalledTimes(1);
    expect(socket.listenerCount()).toBe(0);
    expect(store.getFleetState().hasSnapshot).toBe(false);
  });

  it("keeps the socket when a new page retains it within the grace period", async () => {
    const store = await import("@/components/live/live-fleet-store");
    const release = store.retainLiveFleet();
    release();
    vi.advanceTimersByTime(1_000);
    store.retainLiveFleet();
    vi.advanceTimersByTime(10_000);
    expect(socket.disconnect).not.toHaveBeenCalled();
    expect(socket.connect).toHaveBeenCalledTimes(1);
  });

  it("tells a temporary drop from a final one", async () => {
    const store = await import("@/components/live/live-fleet-store");
    store.retainLiveFleet();
    socket.emitFromServer("fleet:snapshot", snapshot());

    socket.emitFromServer("disconnect", "transport close");
    expect(store.getFleetState().status).toBe("reconnecting");
    // The data stays on screen while reconnecting; the banner shows its age.
    expect(store.getFleetState().hasSnapshot).toBe(true);

    socket.emitFromServer("fleet:snapshot", snapshot());
    expect(store.getFleetState().status).toBe("live");

    socket.active = false;
    socket.emitFromServer("disconnect", "io server disconnect");
    expect(store.getFleetState().status).toBe("disconnected");

    store.reconnectLiveFleet();
    expect(store.getFleetState().status).toBe("reconnecting");
    expect(socket.connect).toHaveBeenCalledTimes(2);
  });

  it("tells each GPU's listener only of its own GPU's readings, once per redraw, and every GPU's after a snapshot", async () => {
    const store = await import("@/components/live/live-fleet-store");
    store.retainLiveFleet();
    const t0 = Date.parse("2026-03-03T12:00:00Z");
    const host = { id: "h1", name: "node-1", simulated: true, online: true, lastSeenAt: null, driverVersion: null, cudaVersion: null, gpuUuids: ["GPU-a", "GPU-b"] };
    const gpu = (uuid: string, index: number, util: number, seconds: number) => ({
      index, uuid, name: "NVIDIA H200", pciBusId: `0000:0${index}:00.0`, memoryTotalMiB: 143771, memoryUsedMiB: 1024,
      utilizationGpuPct: util, utilizationMemoryPct: 5, temperatureC: 40, powerDrawW: 120, powerLimitW: 700, fanSpeedPct: null,
      smClockMHz: 1980, pstate: "P0", migMode: "Disabled", eccErrorsUncorrected: 0, hostId: "h1", hostName: "node-1",
      sampledAt: new Date(t0 + seconds * 1000).toISOString(), processes: [],
    });
    socket.emitFromServer("fleet:snapshot", { ...snapshot(), v: 3, hosts: [host], gpus: [gpu("GPU-a", 0, 1, 0), gpu("GPU-b", 1, 1, 0)], slots: [0, 1] });
    // The first delta after a snapshot may tell every GPU (the state takes the full path once).
    socket.emitFromServer("fleet:delta", { v: 3, t: t0 + 1000, n: [[0, gpu("GPU-a", 0, 50, 1)], [1, gpu("GPU-b", 1, 50, 1)]] });
    vi.advanceTimersByTime(store.READINGS_REDRAW_MS);
    const heardA = vi.fn();
    const heardB = vi.fn();
    store.subscribeGpu("GPU-a", heardA);
    store.subscribeGpu("GPU-b", heardB);

    // Deltas within one redraw period, all for GPU-a only: GPU-b hears nothing, GPU-a the latest reading.
    socket.emitFromServer("fleet:delta", { v: 3, t: t0 + 1500, n: [[0, gpu("GPU-a", 0, 60, 2)]] });
    socket.emitFromServer("fleet:delta", { v: 3, t: t0 + 1600, n: [[0, gpu("GPU-a", 0, 70, 3)]] });
    vi.advanceTimersByTime(store.READINGS_REDRAW_MS);
    expect(heardB).not.toHaveBeenCalled();
    const callsA = heardA.mock.calls.length;
    expect(callsA).toBe(1);
    expect(store.getGpuReadings("GPU-a").gpu?.utilizationGpuPct).toBe(70);
    expect(store.getGpuReadings("GPU-a").sparkline?.at(-1)?.util).toBe(70);

    socket.emitFromServer("fleet:snapshot", { ...snapshot(), v: 3, hosts: [host], gpus: [gpu("GPU-a", 0, 2, 4), gpu("GPU-b", 1, 2, 4)], slots: [0, 1] });
    expect(heardA).toHaveBeenCalledTimes(2);
    expect(heardB).toHaveBeenCalledTimes(1);
    expect(store.getGpuReadings("GPU-b").gpu?.utilizationGpuPct).toBe(2);
  });

  it("tells a card of its GPU's new reading at the next frame, while the page's redraw waits its turn", async () => {
    const store = await import("@/components/live/live-fleet-store");
    store.retainLiveFleet();
    const t0 = Date.parse("2026-03-03T12:00:00Z");
    const host = { id: "h1", name: "node-1", simulated: true, online: true, lastSeenAt: null, driverVersion: null, cudaVersion: null, gpuUuids: ["GPU-a"] };
    const gpu = (util: number, seconds: number) => ({
      index: 0, uuid: "GPU-a", name: "NVIDIA H200", pciBusId: "0000:00:00.0", memoryTotalMiB: 143771, memoryUsedMiB: 1024,
      utilizationGpuPct: util, utilizationMemoryPct: 5, temperatureC: 40, powerDrawW: 120, powerLimitW: 700, fanSpeedPct: null,
      smClockMHz: 1980, pstate: "P0", migMode: "Disabled", eccErrorsUncorrected: 0, hostId: "h1", hostName: "node-1",
      sampledAt: new Date(t0 + seconds * 1000).toISOString(), processes: [],
    });
    socket.emitFromServer("fleet:snapshot", { ...snapshot(), v: 3, hosts: [host], gpus: [gpu(1, 0)], slots: [0] });
    const page = vi.fn();
    const card = vi.fn();
    store.subscribeFleet(page);
    store.subscribeGpu("GPU-a", card);
    // The page has just redrawn (the snapshot): the next readings' page redraw waits, the card's does not.
    socket.emitFromServer("fleet:delta", { v: 3, t: t0 + 1000, n: [[0, gpu(40, 1)]] });
    vi.advanceTimersByTime(20);
    expect(card).toHaveBeenCalledTimes(1);
    expect(page).not.toHaveBeenCalled();
    expect(store.getGpuReadings("GPU-a").gpu?.utilizationGpuPct).toBe(40);
    vi.advanceTimersByTime(store.READINGS_REDRAW_MS);
    expect(page).toHaveBeenCalledTimes(1);
    // The page's redraw tells the card nothing new: it already drew this reading.
    expect(card).toHaveBeenCalledTimes(1);
  });

  it("opens the socket as the fleet page's script loads and hands it to the page when it mounts", async () => {
    vi.stubGlobal("window", {});
    try {
      const store = await import("@/components/live/live-fleet-store");
      store.openLiveFleetEarly();
      expect(socket.connect).toHaveBeenCalledTimes(1);
      expect(follows).toEqual([true]);
      // The page hydrates and retains the fleet: the same socket, and it outlives the early hold.
      const release = store.retainLiveFleet();
      expect(socket.connect).toHaveBeenCalledTimes(1);
      vi.advanceTimersByTime(60_000);
      expect(socket.disconnect).not.toHaveBeenCalled();
      release();
      vi.advanceTimersByTime(10_000);
      expect(socket.disconnect).toHaveBeenCalledTimes(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("closes an early socket that no page took over", async () => {
    vi.stubGlobal("window", {});
    try {
      const store = await import("@/components/live/live-fleet-store");
      store.openLiveFleetEarly();
      vi.advanceTimersByTime(30_000);
      expect(socket.disconnect).toHaveBeenCalledTimes(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("holds a page's secondary reads until the fleet's first snapshot", async () => {
    const store = await import("@/components/live/live-fleet-store");
    // A page without the live fleet reads at once.
    const alone = vi.fn();
    store.afterFirstScreen(alone);
    expect(alone).toHaveBeenCalledTimes(1);

    store.retainLiveFleet();
    const badge = vi.fn();
    const cancelled = vi.fn();
    store.afterFirstScreen(badge);
    store.afterFirstScreen(cancelled)();
    vi.advanceTimersByTime(500);
    expect(badge).not.toHaveBeenCalled();
    socket.emitFromServer("fleet:snapshot", snapshot());
    expect(badge).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5_000);
    expect(badge).toHaveBeenCalledTimes(1);
    expect(cancelled).not.toHaveBeenCalled();
    // Once live, a read asked for later goes at once.
    const later = vi.fn();
    store.afterFirstScreen(later);
    expect(later).toHaveBeenCalledTimes(1);
  });

  it("lets a page's secondary reads go after two seconds when the snapshot does not come", async () => {
    const store = await import("@/components/live/live-fleet-store");
    store.retainLiveFleet();
    const badge = vi.fn();
    store.afterFirstScreen(badge);
    vi.advanceTimersByTime(1_999);
    expect(badge).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(badge).toHaveBeenCalledTimes(1);
    socket.emitFromServer("fleet:snapshot", snapshot());
    expect(badge).toHaveBeenCalledTimes(1);
  });
});
