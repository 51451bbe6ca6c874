import { afterEach, describe, expect, it } from "vitest";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { LiveBooking } from "@/lib/live/live";
import type { GpuDeltaWire, GpuSnapshotWire } from "@/lib/live/live-wire";
import { FleetState } from "@/server/fleet/fleet-state";
import { MAX_WATCHED_GPUS } from "@/server/live/gpu-scope";
import type { LiveViewer } from "@/server/access/live-revocation";
import { makeGpu, makeProcess, makeSnapshot } from "@/server/testing/factories";
import { messagesIn, readingTimes, startLiveServer, until, watchGpu, watchMember, type LiveServerOptions } from "@/server/testing/live-clients";

/**
 * The GPU scope of /live (docs/live-protocol.md): the GPU page watches one
 * GPU and gets that GPU alone, whole, with its history, state and bookings.
 */

const viewers: Record<string, LiveViewer> = {
  gpd_disp_good: { kind: "display", displayId: "display-1" },
  gpd_pat_member: { kind: "user", userId: "user-1", role: "member", sessionId: null },
};
const authenticate = async ({ token }: { token: string | null }) => (token ? (viewers[token] ?? null) : null);

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setUp(options: { bookings?: LiveBooking[]; states?: Record<string, GpuReconciliation>; endpoint?: LiveServerOptions } = {}) {
  const fleet = new FleetState({ offlineAfterMs: 5000, simulated: true });
  let bookings = options.bookings ?? [];
  const bookingListeners = new Set<(list: LiveBooking[]) => void>();
  let states = options.states ?? {};
  let pendingStates: Record<string, GpuReconciliation> | null = null;
  const live = await startLiveServer(fleet, {
    tickMs: 50,
    flushMs: 20,
    ...options.endpoint,
    authenticate,
    bookings: {
      current: () => bookings,
      subscribe: (listener) => {
        bookingListeners.add(listener);
        return () => bookingListeners.delete(listener);
      },
    },
    states: {
      current: () => states,
      changed: () => {
        const changed = pendingStates;
        pendingStates = null;
        return changed;
      },
    },
  });
  closers.push(() => live.close());
  const a = makeGpu({ index: 0, fanSpeedPct: 40, smClockMHz: 1980 });
  const b = makeGpu({ index: 1, pciBusId: "00000000:18:00.0" });
  const processes = [makeProcess(a, { command: "python only-on-a.py" }), makeProcess(b, { pid: 999, command: "python only-on-b.py" })];
  fleet.connectHost("h1", "node-a", true);
  const start = Date.now() - 10_000;
  const ingest = (t: number, overrides: { a?: Partial<typeof a>; b?: Partial<typeof b> } = {}) =>
    fleet.ingest("h1", makeSnapshot([{ ...a, ...overrides.a }, { ...b, ...overrides.b }], start + t, { host: { name: "node-a", driverVersion: "580", cudaVersion: "13.0" }, processes }));
  for (let t = 0; t <= 3000; t += 1000) ingest(t);
  return {
    fleet,
    live,
    a,
    b,
    start,
    ingest,
    setBookings(next: LiveBooking[]) {
      bookings = next;
      for (const listener of bookingListeners) listener(next);
    },
    setState(uuid: string, state: GpuReconciliation) {
      states = { ...states, [uuid]: state };
      pendingStates = { [uuid]: state };
    },
  };
}

function bookingOf(uuid: string): LiveBooking {
  return {
    reservationId: "res-1",
    hostId: "h1",
    hostName: "node-a",
    gpus: [{ uuid, index: 0 }],
    bookedBy: { id: "user-9", username: "carol", name: "Carol" },
    startsAt: new Date(Date.now() - 60_000).toISOString(),
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    purpose: "ablation",
  };
}

/** The GPU scope's messages in a socket's raw frames, in the order they came. */
function gpuMessages(frames: string[]) {
  return messagesIn<never>(frames, ["gpu:snapshot", "gpu:delta"]) as ({ name: "gpu:snapshot"; wire: GpuSnapshotWire } | { name: "gpu:delta"; wire: GpuDeltaWire })[];
}

describe("the GPU scope", () => {
  it("sends a watching page its GPU whole with 15 minutes of history, then deltas of every field, and nothing about another GPU", async () => {
    const { live, a, b, start, ingest } = await setUp();
    const { socket, frames } = live.connect({ token: "gpd_pat_member", fleet: false });
    let fleetMessages = 0;
    socket.on("fleet:snapshot", () => (fleetMessages += 1));
    socket.on("fleet:delta", () => (fleetMessages += 1));
    const page = watchGpu(socket, a.uuid);
    await until(() => page.state().hasSnapshot, 3000, "the GPU's snapshot");
    expect(page.answers).toEqual([true]);
    expect(page.state().gpu).toMatchObject({ uuid: a.uuid, fanSpeedPct: 40, processes: [expect.objectContaining({ command: "python only-on-a.py" })] });
    expect(page.state().host).toMatchObject({ name: "node-a", driverVersion: "580" });
    expect(page.state().points.map((point) => point.t)).toEqual([0, 1000, 2000, 3000].map((t) => start + t));

    // The fields only this page shows move: they travel here.
    ingest(4000, { a: { utilizationGpuPct: 91, fanSpeedPct: 77, smClockMHz: 1410, pstate: "P2" }, b: { utilizationGpuPct: 13 } });
    await until(() => page.state().gpu?.fanSpeedPct === 77, 3000, "the fan speed");
    expect(page.state().gpu).toMatchObject({ utilizationGpuPct: 91, smClockMHz: 1410, pstate: "P2", sampledAt: new Date(start + 4000).toISOString() });
    expect(page.state().points.at(-1)).toMatchObject({ t: start + 4000, util: 91 });

    // The host lists its GPUs (the page learns from it that its GPU is still there); nothing else of B travels.
    const raw = frames.join("\n").replace(/"gpuUuids":\[[^\]]*\]/g, "");
    expect(raw).not.toContain(b.uuid);
    expect(raw).not.toContain("only-on-b.py");
    expect(fleetMessages).toBe(0);
  });

  it("sends each room's delta once per flush to all its watchers, and a GPU's state and bookings when they change", async () => {
    const { live, a, ingest, setBookings, setState } = await setUp();
    const first = live.connect({ token: "gpd_pat_member", fleet: false });
    const second = live.connect({ token: "gpd_pat_member", fleet: false });
    const pages = [watchGpu(first.socket, a.uuid), watchGpu(second.socket, a.uuid)];
    const wires: GpuDeltaWire[][] = [[], []];
    first.socket.on("gpu:delta", (wire) => wires[0].push(wire));
    second.socket.on("gpu:delta", (wire) => wires[1].push(wire));
    await until(() => pages.every((page) => page.state().hasSnapshot));
    expect(pages[0].state().bookings).toEqual([]);

    ingest(4000, { a: { utilizationGpuPct: 70 } });
    setBookings([bookingOf(a.uuid)]);
    setState(a.uuid, { state: "booked_in_use", bookedBy: null, runners: [], problem: null } as unknown as GpuReconciliation);
    await until(() => pages.every((page) => page.state().gpu?.utilizationGpuPct === 70 && page.state().bookings.length === 1 && page.state().reconciliation !== null), 3000, "reading, booking and state");
    expect(pages[1].state().bookings[0]?.bookedBy.name).toBe("Carol");
    expect(pages[1].state().reconciliation?.state).toBe("booked_in_use");
    // The same encoded deltas, not one per socket. Compared from the change on: a delta sent
    // before the second page joined the room (the setup's readings) reached the first one only.
    const fromChange = (list: GpuDeltaWire[]) => list.slice(list.findIndex((wire) => wire.b !== undefined));
    await until(() => wires.every((list) => list.some((wire) => wire.b !== undefined)));
    await until(() => fromChange(wires[0]).length === fromChange(wires[1]).length);
    expect(fromChange(wires[0]).length).toBeGreaterThan(0);
    expect(fromChange(wires[0])).toEqual(fromChange(wires[1]));
  });

  it("sends a new watcher its snapshot and then the next flush's delta, never the delta of its snapshot's flush, which the others get", async () => {
    // A reading waits up to 400 ms for the rest of its burst: the second page's snapshot is what sends it, in the flush of that snapshot.
    const { live, a, start, ingest } = await setUp({ endpoint: { minHoldMs: 400, maxHoldMs: 400 } });
    const first = live.connect({ token: "gpd_pat_member", fleet: false });
    const firstPage = watchGpu(first.socket, a.uuid);
    await until(() => firstPage.state().hasSnapshot);
    const second = live.connect({ token: "gpd_pat_member", fleet: false });
    await until(() => second.socket.connected);
    ingest(4000, { a: { utilizationGpuPct: 64 } });
    const secondPage = watchGpu(second.socket, a.uuid);
    await until(() => secondPage.state().hasSnapshot, 3000, "the second page's snapshot");
    ingest(5000, { a: { utilizationGpuPct: 65 } });
    await until(() => [firstPage, secondPage].every((page) => page.state().gpu?.utilizationGpuPct === 65), 3000, "the next reading");

    const seenBySecond = gpuMessages(second.frames);
    expect(seenBySecond.map((message) => message.name)).toEqual(["gpu:snapshot", "gpu:delta"]);
    const [snapshot, next] = seenBySecond;
    if (snapshot.name !== "gpu:snapshot" || next.name !== "gpu:delta") throw new Error("unreachable");
    expect(snapshot.wire.gpu?.utilizationGpuPct).toBe(64);
    expect(Math.max(...snapshot.wire.history[0]) + Date.parse(snapshot.wire.serverTime)).toBe(start + 4000);
    expect(readingTimes(next.wire)).toEqual([start + 5000]);
    // The page that watched already got both readings, each once.
    const firstDeltas = gpuMessages(first.frames).flatMap((message) => (message.name === "gpu:delta" ? [message.wire] : []));
    expect(firstDeltas.flatMap(readingTimes)).toEqual([start + 4000, start + 5000]);
    expect(secondPage.state().points.map((point) => point.t)).toEqual(firstPage.state().points.map((point) => point.t));
  });

  it("sends a booking change to the watchers of its GPU alone, and no bookings in deltas while theirs do not change", async () => {
    const { live, a, b, ingest, setBookings } = await setUp();
    const onA = live.connect({ token: "gpd_pat_member", fleet: false });
    const onB = live.connect({ token: "gpd_pat_member", fleet: false });
    const pageA = watchGpu(onA.socket, a.uuid);
    const pageB = watchGpu(onB.socket, b.uuid);
    await until(() => pageA.state().hasSnapshot && pageB.state().hasSnapshot);
    const booking = bookingOf(a.uuid);
    setBookings([booking]);
    await until(() => pageA.state().bookings.length === 1, 3000, "the booking");
    // The feed announces again without a change to A's bookings, and readings keep coming.
    setBookings([booking]);
    ingest(4000, { a: { utilizationGpuPct: 71 }, b: { utilizationGpuPct: 72 } });
    await until(() => pageA.state().gpu?.utilizationGpuPct === 71 && pageB.state().gpu?.utilizationGpuPct === 72, 3000, "the readings");

    const deltasOf = (frames: string[]) => gpuMessages(frames).flatMap((message) => (message.name === "gpu:delta" ? [message.wire] : []));
    expect(deltasOf(onA.frames).flatMap((wire) => (wire.b ? [wire.b] : []))).toEqual([[booking]]);
    expect(deltasOf(onB.frames).filter((wire) => wire.b !== undefined)).toEqual([]);
    expect(deltasOf(onB.frames).length).toBeGreaterThan(0);
    expect(pageB.state().bookings).toEqual([]);
  });

  it("lists on a GPU's page a booking of one of its former slices, as every surface holds the silicon it shares", async () => {
    const { live, a, b, setBookings } = await setUp();
    const onA = live.connect({ token: "gpd_pat_member", fleet: false });
    const onB = live.connect({ token: "gpd_pat_member", fleet: false });
    const pageA = watchGpu(onA.socket, a.uuid);
    const pageB = watchGpu(onB.socket, b.uuid);
    await until(() => pageA.state().hasSnapshot && pageB.state().hasSnapshot);
    // Booked while GPU 0 was split; the GPU is whole again: the booking still holds its silicon.
    const sliceBooking = { ...bookingOf("MIG-former-slice-of-a"), gpus: [{ uuid: "MIG-former-slice-of-a", index: 0, parentUuid: a.uuid }] };
    setBookings([sliceBooking]);
    await until(() => pageA.state().bookings.length === 1, 3000, "the slice's booking on its GPU's page");
    expect(pageA.state().bookings[0]).toMatchObject({ reservationId: "res-1" });
    expect(pageB.state().bookings).toEqual([]);
  });

  it("refuses a wall display, and bounds how many GPUs one socket watches", async () => {
    const { live, a, ingest } = await setUp();
    const wall = live.connect({ token: "gpd_disp_good" });
    const refused = await new Promise<{ ok: boolean }>((resolve) => wall.socket.emit("gpu:watch", a.uuid, resolve));
    expect(refused.ok).toBe(false);
    // Nothing of the GPU scope reaches it while a member's page watches the same GPU.
    const member = watchGpu(live.connect({ token: "gpd_pat_member", fleet: false }).socket, a.uuid);
    ingest(4000, { a: { utilizationGpuPct: 58 } });
    await until(() => member.state().gpu?.utilizationGpuPct === 58, 3000, "the member's reading");
    expect(gpuMessages(wall.frames)).toEqual([]);
    expect(wall.frames.join("\n")).toContain("display:snapshot");

    const { socket } = live.connect({ token: "gpd_pat_member", fleet: false });
    await until(() => socket.connected);
    const watch = (uuid: string) => new Promise<{ ok: boolean }>((resolve) => socket.emit("gpu:watch", uuid, resolve));
    const uuids = Array.from({ length: MAX_WATCHED_GPUS + 1 }, (_, i) => `GPU-bounded-${i}`);
    const answers = [];
    for (const uuid of uuids) answers.push((await watch(uuid)).ok);
    expect(answers).toEqual([...Array<boolean>(MAX_WATCHED_GPUS).fill(true), false]);
    // Watching one already watched is no new watch; leaving one frees a place.
    expect((await watch(uuids[0])).ok).toBe(true);
    socket.emit("gpu:unwatch", uuids[0]);
    expect((await watch(uuids[MAX_WATCHED_GPUS])).ok).toBe(true);
    expect((await watch("x".repeat(300))).ok).toBe(false);
  });

  it("gives a page that reconnects a fresh snapshot: the chart has every point once, none missing", async () => {
    const { live, fleet, a, start, ingest } = await setUp();
    const { socket } = live.connect({ token: "gpd_pat_member", fleet: false });
    const page = watchGpu(socket, a.uuid);
    await until(() => page.state().hasSnapshot);
    socket.disconnect();
    // Readings while the page is away, and a reading the page had seen replayed.
    ingest(4000, { a: { utilizationGpuPct: 10 } });
    ingest(5000, { a: { utilizationGpuPct: 20 } });
    await new Promise((resolve) => setTimeout(resolve, 60));
    socket.connect();
    await until(() => page.snapshots() === 2, 3000, "the second snapshot");
    ingest(6000, { a: { utilizationGpuPct: 30 } });
    await until(() => page.state().gpu?.utilizationGpuPct === 30, 3000, "the reading after");
    const times = page.state().points.map((point) => point.t);
    expect(times).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000].map((t) => start + t));
    expect(times).toEqual(fleet.history(a.uuid)?.points.map((point) => point.t));
  });

  it("lets a socket take and leave the whole fleet's feed while it watches a GPU", async () => {
    const { live, a, b, ingest } = await setUp();
    const { socket } = live.connect({ token: "gpd_pat_member", fleet: false });
    const page = watchGpu(socket, a.uuid);
    const member = watchMember(socket);
    await until(() => page.state().hasSnapshot);
    socket.emit("fleet:follow");
    await until(() => member.state().hasSnapshot, 3000, "the fleet's snapshot");
    expect(Object.keys(member.state().gpus).sort()).toEqual([a.uuid, b.uuid].sort());
    socket.emit("fleet:unfollow");
    await new Promise((resolve) => setTimeout(resolve, 60));
    const deltasBefore = member.deltas.length;
    ingest(4000, { a: { utilizationGpuPct: 44 } });
    await until(() => page.state().gpu?.utilizationGpuPct === 44);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(member.deltas.length).toBe(deltasBefore);
  });

  it("keeps the fields only the GPU page shows out of the member scope", async () => {
    const { live, a, ingest } = await setUp();
    const { socket, frames } = live.connect({ token: "gpd_pat_member" });
    const member = watchMember(socket);
    await until(() => member.state().hasSnapshot);
    ingest(4000, { a: { utilizationGpuPct: 91, utilizationMemoryPct: 63, fanSpeedPct: 77, smClockMHz: 1410, pstate: "P2" } });
    await until(() => member.state().gpus[a.uuid]?.utilizationGpuPct === 91, 3000, "the reading");
    expect(member.state().gpus[a.uuid]).toMatchObject({ utilizationMemoryPct: null, fanSpeedPct: null, smClockMHz: null, pstate: null, powerDrawW: 300 });
    const raw = frames.join("\n");
    expect(raw).not.toMatch(/"P[02]"|"(utilizationMemoryPct|fanSpeedPct|smClockMHz)":\d/);
  });

  it("tells the page when its GPU's host goes away", async () => {
    const { live, fleet, a } = await setUp();
    const page = watchGpu(live.connect({ token: "gpd_pat_member", fleet: false }).socket, a.uuid);
    await until(() => page.state().gpu !== null);
    fleet.removeHost("h1");
    await until(() => page.state().gpu === null, 3000, "the GPU gone");
    expect(page.state().host).toBeNull();
  });
});
