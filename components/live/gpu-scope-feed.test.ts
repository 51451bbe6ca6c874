import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { GpuScopeState } from "@/lib/live/gpu-scope-state";
import { FleetState } from "@/server/fleet/fleet-state";
import { gpuRoom } from "@/server/live/gpu-scope";
import { makeGpu, makeSnapshot } from "@/server/testing/factories";
import { startLiveServer, until } from "@/server/testing/live-clients";

/**
 * What the GPU page gets from its hook (components/live/use-gpu-scope.ts is this
 * feed in a useEffect): the tab's real socket module against a real /live
 * server, as a browser tab would hold them.
 */

let liveUrl = "";
// The tab's socket connects to its page's origin; here, to the test server.
vi.mock("socket.io-client", async (importOriginal) => {
  const real = await importOriginal<typeof import("socket.io-client")>();
  return {
    ...real,
    io: (_namespace: string, options: Record<string, unknown>) =>
      real.io(liveUrl, { ...options, transports: ["websocket"], reconnectionDelay: 20, reconnectionDelayMax: 40 }),
  };
});

const closers: (() => Promise<void> | void)[] = [];
beforeEach(() => {
  vi.resetModules();
  // The socket module is browser-only; it reads nothing of the window here.
  vi.stubGlobal("window", globalThis);
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function setUp() {
  const fleet = new FleetState({ offlineAfterMs: 5000, simulated: true });
  const live = await startLiveServer(fleet, { tickMs: 50, flushMs: 20 });
  closers.push(() => live.close());
  liveUrl = live.url;
  const a = makeGpu({ index: 0 });
  const b = makeGpu({ index: 1, pciBusId: "00000000:18:00.0" });
  fleet.connectHost("h1", "node-a", true);
  const start = Date.now() - 10_000;
  const ingest = (t: number, overrides: { a?: Partial<typeof a>; b?: Partial<typeof b> } = {}) =>
    fleet.ingest("h1", makeSnapshot([{ ...a, ...overrides.a }, { ...b, ...overrides.b }], start + t));
  for (let t = 0; t <= 2000; t += 1000) ingest(t);
  const { followGpuScope } = await import("@/components/live/gpu-scope-feed");
  const socketModule = await import("@/components/live/live-socket");
  const socket = socketModule.getLiveSocket();
  /** Sockets of this server in a room (a GPU's watchers, the member scope). */
  const inRoom = (room: string) => live.namespace.adapter.rooms.get(room)?.size ?? 0;
  /** The GPU page, mounted: every state it was told, and its unmount. */
  const mount = (uuid: string) => {
    const states: GpuScopeState[] = [];
    const unmount = followGpuScope(uuid, (state) => states.push(state));
    closers.push(unmount);
    return { states, now: () => states.at(-1), unmount };
  };
  return { fleet, live, a, b, start, ingest, socket, socketModule, inRoom, mount };
}

describe("the GPU page's feed", () => {
  it("connects the tab's socket, watches its GPU, and shows the snapshot and then each reading", async () => {
    const { a, start, ingest, socket, inRoom, mount } = await setUp();
    const page = mount(a.uuid);
    await until(() => page.now()?.hasSnapshot === true, 3000, "the snapshot");
    expect(socket.connected).toBe(true);
    expect(inRoom(gpuRoom(a.uuid))).toBe(1);
    expect(page.now()).toMatchObject({ status: "live", gpu: { uuid: a.uuid }, host: { name: "node-a" } });
    expect(page.now()?.points.map((point) => point.t)).toEqual([0, 1000, 2000].map((t) => start + t));

    ingest(3000, { a: { utilizationGpuPct: 61 } });
    ingest(4000, { a: { utilizationGpuPct: 62 } });
    await until(() => page.now()?.gpu?.utilizationGpuPct === 62, 3000, "the readings");
    expect(page.now()?.points.map((point) => point.t)).toEqual([0, 1000, 2000, 3000, 4000].map((t) => start + t));
    expect(page.states.filter((state) => state.hasSnapshot).every((state) => state.uuid === a.uuid)).toBe(true);
  });

  it("unwatches when the page leaves or moves to another GPU, and then hears nothing more of the first", async () => {
    const { a, b, ingest, socket, socketModule, inRoom, mount } = await setUp();
    // Another booker (the fleet view, a navigation's next page) keeps the socket across the change.
    closers.push(socketModule.retainLiveSocket());
    const first = mount(a.uuid);
    await until(() => first.now()?.hasSnapshot === true);
    const heard: string[] = [];
    first.unmount();
    socket.on("gpu:delta", (wire) => heard.push(wire.u));
    const second = mount(b.uuid);
    await until(() => inRoom(gpuRoom(a.uuid)) === 0, 3000, "the first GPU unwatched");
    await until(() => second.now()?.hasSnapshot === true, 3000, "the second GPU's snapshot");
    const toldFirst = first.states.length;

    ingest(3000, { a: { utilizationGpuPct: 33 }, b: { utilizationGpuPct: 44 } });
    await until(() => second.now()?.gpu?.utilizationGpuPct === 44, 3000, "the second GPU's reading");
    expect(second.now()?.uuid).toBe(b.uuid);
    expect(heard).not.toContain(a.uuid);
    expect(first.states).toHaveLength(toldFirst);
    expect(socket.connected).toBe(true);

    second.unmount();
    await until(() => inRoom(gpuRoom(b.uuid)) === 0, 3000, "the second GPU unwatched");
  });

  it("after a dropped connection shows it reconnecting, then takes a new snapshot: every point once, none missing", async () => {
    const { fleet, a, start, ingest, socket, mount } = await setUp();
    const page = mount(a.uuid);
    await until(() => page.now()?.hasSnapshot === true);
    let snapshots = 0;
    socket.on("gpu:snapshot", () => (snapshots += 1));
    // Readings the page sees, then the connection drops and more come while it is away.
    ingest(3000, { a: { utilizationGpuPct: 10 } });
    await until(() => page.now()?.gpu?.utilizationGpuPct === 10);
    socket.io.engine.close();
    ingest(4000, { a: { utilizationGpuPct: 20 } });
    ingest(5000, { a: { utilizationGpuPct: 30 } });
    await until(() => snapshots === 1, 3000, "the snapshot after reconnecting");
    ingest(6000, { a: { utilizationGpuPct: 40 } });
    await until(() => page.now()?.gpu?.utilizationGpuPct === 40, 3000, "the reading after");

    expect(page.states.map((state) => state.status)).toContain("reconnecting");
    expect(page.now()?.status).toBe("live");
    const times = page.now()?.points.map((point) => point.t);
    expect(times).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000].map((t) => start + t));
    expect(times).toEqual(fleet.history(a.uuid)?.points.map((point) => point.t));
  });

  it("shares the tab's socket with the fleet view: either keeps it open, the fleet's feed only while the fleet view holds it", async () => {
    const { a, ingest, socket, inRoom, mount, live } = await setUp();
    const fleetStore = await import("@/components/live/live-fleet-store");
    const releaseFleet = fleetStore.retainLiveFleet();
    const page = mount(a.uuid);
    await until(() => fleetStore.getFleetState().hasSnapshot && page.now()?.hasSnapshot === true, 3000, "both snapshots");
    expect(inRoom("scope:member")).toBe(1);

    // The fleet view goes; its store lets the socket go after a grace time (a navigation's next page may retain it).
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    releaseFleet();
    vi.advanceTimersByTime(10_000);
    vi.useRealTimers();
    await until(() => inRoom("scope:member") === 0, 3000, "the fleet's feed left");
    expect(socket.connected).toBe(true);
    expect(fleetStore.getFleetState().hasSnapshot).toBe(false);
    ingest(3000, { a: { utilizationGpuPct: 81 } });
    await until(() => page.now()?.gpu?.utilizationGpuPct === 81, 3000, "the GPU page's reading");

    // The GPU page goes too: the last page that uses it closes the socket.
    page.unmount();
    await until(() => live.namespace.sockets.size === 0, 3000, "the socket closed");
    expect(socket.connected).toBe(false);
  });

  it("keeps the socket for the fleet view when the GPU page goes first", async () => {
    const { a, socket, inRoom, mount } = await setUp();
    const fleetStore = await import("@/components/live/live-fleet-store");
    closers.push(fleetStore.retainLiveFleet());
    const page = mount(a.uuid);
    await until(() => fleetStore.getFleetState().hasSnapshot && page.now()?.hasSnapshot === true, 3000, "both snapshots");
    page.unmount();
    await until(() => inRoom(gpuRoom(a.uuid)) === 0, 3000, "the GPU unwatched");
    expect(socket.connected).toBe(true);
    expect(inRoom("scope:member")).toBe(1);
  });
});
