import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import { applyDisplayDelta, applyDisplaySnapshot, initialDisplayFeedState } from "@/lib/live/display-feed";
import type { LiveBooking } from "@/lib/live/live";
import { LIVE_FORMAT_ERROR, type DisplayDeltaWire, type DisplaySnapshotWire, type FleetDeltaWire, type FleetSnapshotWire } from "@/lib/live/live-wire";
import { FleetState } from "@/server/fleet/fleet-state";
import type { LiveViewer } from "@/server/access/live-revocation";
import { makeGpu, makeProcess, makeSnapshot } from "@/server/testing/factories";
import { messagesIn, readingTimes, startLiveServer, until, watchDisplay, watchMember } from "@/server/testing/live-clients";

const viewers: Record<string, LiveViewer> = {
  gpd_disp_good: { kind: "display", displayId: "display-1" },
  gpd_pat_member: { kind: "user", userId: "user-1", role: "member", sessionId: null },
};
// Stands in for the server's check: a session cookie or a token.
const authenticate = async ({ headers, token }: { headers: Headers; token: string | null }): Promise<LiveViewer | null> => {
  if (token) return viewers[token] ?? null;
  return headers.get("cookie") === "gpudesk.session_token=ok" ? { kind: "user", userId: "user-2", role: "member", sessionId: "session-2" } : null;
};

const fleet = new FleetState({ offlineAfterMs: 5000, simulated: true });
let server: Awaited<ReturnType<typeof startLiveServer>>;

beforeAll(async () => {
  server = await startLiveServer(fleet, { tickMs: 100, authenticate });
});
afterAll(async () => {
  await server.close();
});

describe("the /live namespace", () => {
  it("refuses a browser without a session or token, and a page of another format", async () => {
    const { socket } = server.connect();
    expect((await new Promise<Error>((resolve) => socket.once("connect_error", resolve))).message).toBe("unauthorized");
    const old = server.connect({ v: 1, token: "gpd_pat_member" });
    expect((await new Promise<Error>((resolve) => old.socket.once("connect_error", resolve))).message).toBe(LIVE_FORMAT_ERROR);
  });

  it("sends a member a snapshot on connect, then deltas that merge into the same fleet", async () => {
    const gpu = makeGpu();
    fleet.connectHost("h1", "node-a", true);
    fleet.ingest("h1", makeSnapshot([gpu], Date.now()));
    const { socket } = server.connect({ token: "gpd_pat_member" });
    const member = watchMember(socket);
    await until(() => member.state().hasSnapshot, 3000, "snapshot");
    expect(Object.keys(member.state().gpus)).toContain(gpu.uuid);

    fleet.ingest("h1", makeSnapshot([{ ...gpu, utilizationGpuPct: 12 }], Date.now() + 10));
    fleet.ingest("h1", makeSnapshot([{ ...gpu, utilizationGpuPct: 34 }], Date.now() + 20));
    await until(() => member.state().gpus[gpu.uuid]?.utilizationGpuPct === 34, 3000, "the newest reading");
    expect(member.deltas.at(-1)?.gpus.map((entry) => entry.uuid)).toEqual([gpu.uuid]);
  });

  it("accepts a signed-in browser by its cookie", async () => {
    const gpu = makeGpu();
    fleet.connectHost("h-cookie", "node-cookie", true);
    fleet.ingest("h-cookie", makeSnapshot([gpu], Date.now()));
    const { socket } = server.connect({}, { cookie: "gpudesk.session_token=ok" });
    const snapshot = await new Promise<{ hosts: { name: string }[]; gpus: { uuid: string }[] }>((resolve, reject) => {
      socket.once("fleet:snapshot", resolve);
      socket.once("connect_error", reject);
    });
    // The fleet as a signed-in browser sees it, its host and GPU included.
    expect(snapshot.hosts.map((host) => host.name)).toContain("node-cookie");
    expect(snapshot.gpus.map((entry) => entry.uuid)).toContain(gpu.uuid);
  });
});

describe("the member scope's deltas", () => {
  it("carry only the fields that changed, rounded as shown, and processes only when they change", async () => {
    const compact = new FleetState({ offlineAfterMs: 5000, simulated: true });
    const live = await startLiveServer(compact, { tickMs: 3_600_000, flushMs: 20 });
    try {
      const gpu = makeGpu({ utilizationGpuPct: 37.4 });
      const process = makeProcess(gpu, { usedMemoryMiB: 1000, command: "python train.py --epochs 90" });
      compact.connectHost("h3", "node-c", true);
      const start = Date.now();
      compact.ingest("h3", makeSnapshot([gpu], start, { processes: [process] }));
      const { socket } = live.connect();
      const member = watchMember(socket);
      const wires: FleetDeltaWire[] = [];
      socket.on("fleet:delta", (wire) => wires.push(wire));
      await until(() => member.state().hasSnapshot);
      wires.length = 0;

      const step = async (t: number, sample: typeof gpu, processes = [process]) => {
        const count = wires.length;
        compact.ingest("h3", makeSnapshot([sample], start + t, { processes }));
        await until(() => wires.length > count, 3000, `the delta of +${t} ms`);
        return wires.at(-1)!;
      };
      // 37.4 → 37.2: shown as 37 both times, so nothing but the reading's time.
      const same = await step(1000, { ...gpu, utilizationGpuPct: 37.2 });
      expect(same.r).toEqual([[expect.any(Number), expect.any(Number), 0]]);
      // Utilization alone: one field, no process, no fixed field.
      const busy = await step(2000, { ...gpu, utilizationGpuPct: 90.4 });
      expect(busy.r?.[0]?.slice(2)).toEqual([1, 90]);
      expect(JSON.stringify(busy)).not.toContain("train.py");
      // Memory of the same process: its MiB only.
      const grown = await step(3000, { ...gpu, utilizationGpuPct: 90.4 }, [{ ...process, usedMemoryMiB: 2000 }]);
      expect(JSON.stringify(grown)).not.toContain("train.py");
      expect(member.state().gpus[gpu.uuid]?.processes[0]).toMatchObject({ pid: process.pid, usedMemoryMiB: 2000, command: process.command });
      // A new process: the set goes out whole.
      const other = makeProcess(gpu, { pid: 777, command: "python eval.py", usedMemoryMiB: 10 });
      const joined = await step(4000, { ...gpu, utilizationGpuPct: 90.4 }, [{ ...process, usedMemoryMiB: 2000 }, other]);
      expect(JSON.stringify(joined)).toContain("eval.py");
      await until(() => member.state().gpus[gpu.uuid]?.processes.length === 2);
      expect(member.state().gpus[gpu.uuid]).toMatchObject({ utilizationGpuPct: 90, sampledAt: new Date(start + 4000).toISOString() });
      expect(member.state().sparklines[gpu.uuid]?.map((point) => point.t)).toEqual([0, 1000, 2000, 3000, 4000].map((t) => start + t));
    } finally {
      await live.close();
    }
  });

  it("send new readings at the next flush, without waiting for the rules' tick", async () => {
    const quick = new FleetState({ offlineAfterMs: 5000, simulated: true });
    const live = await startLiveServer(quick, { tickMs: 3_600_000, flushMs: 20 });
    try {
      const gpu = makeGpu();
      quick.connectHost("h9", "node-q", true);
      const member = watchMember(live.connect().socket);
      await until(() => member.state().hasSnapshot);
      quick.ingest("h9", makeSnapshot([gpu], Date.now()));
      await until(() => member.deltas.some((delta) => delta.gpus.some((entry) => entry.uuid === gpu.uuid)), 1000, "the reading");
    } finally {
      await live.close();
    }
  });

  it("go to a new member after its snapshot from the next flush on, and to the others each once", async () => {
    const held = new FleetState({ offlineAfterMs: 5000, simulated: true });
    // A reading waits up to 400 ms for the rest of its burst: the new page's snapshot is what sends it, in the flush of that snapshot.
    const live = await startLiveServer(held, { tickMs: 3_600_000, flushMs: 20, minHoldMs: 400, maxHoldMs: 400 });
    try {
      const gpu = makeGpu();
      const start = Date.now() - 10_000;
      held.connectHost("h-n", "node-n", true);
      held.ingest("h-n", makeSnapshot([gpu], start));
      held.drainDelta();
      const first = live.connect();
      const firstMember = watchMember(first.socket);
      await until(() => firstMember.state().hasSnapshot);
      // The second page connects without the fleet's feed and takes it once the reading waits.
      const second = live.connect({ fleet: false });
      const secondMember = watchMember(second.socket);
      await until(() => second.socket.connected);
      held.ingest("h-n", makeSnapshot([{ ...gpu, utilizationGpuPct: 64 }], start + 4000));
      second.socket.emit("fleet:follow");
      await until(() => secondMember.state().hasSnapshot, 3000, "the second page's snapshot");
      held.ingest("h-n", makeSnapshot([{ ...gpu, utilizationGpuPct: 65 }], start + 5000));
      await until(() => [firstMember, secondMember].every((member) => member.state().gpus[gpu.uuid]?.utilizationGpuPct === 65), 3000, "the next reading");

      const seenBySecond = messagesIn<FleetSnapshotWire & FleetDeltaWire>(second.frames, ["fleet:snapshot", "fleet:delta"]);
      expect(seenBySecond.map((message) => message.name)).toEqual(["fleet:snapshot", "fleet:delta"]);
      expect(seenBySecond[0]!.wire.gpus[0]).toMatchObject({ uuid: gpu.uuid, utilizationGpuPct: 64 });
      expect(readingTimes(seenBySecond[1]!.wire)).toEqual([start + 5000]);
      // The page that watched already got both readings, each once.
      const firstDeltas = messagesIn<FleetDeltaWire>(first.frames, ["fleet:delta"]).map((message) => message.wire);
      expect(firstDeltas.flatMap(readingTimes)).toEqual([start + 4000, start + 5000]);
      // The sparklines alike, each reading once (a snapshot's sparkline carries utilization alone).
      const sparkline = (member: typeof firstMember) => member.state().sparklines[gpu.uuid]?.map((point) => [point.t, point.util]);
      expect(sparkline(secondMember)).toEqual([[start, 50], [start + 4000, 64], [start + 5000, 65]]);
      expect(sparkline(firstMember)).toEqual(sparkline(secondMember));
    } finally {
      await live.close();
    }
  });

  it("build one snapshot for the connections that arrive within one flush", async () => {
    const shared = new FleetState({ offlineAfterMs: 5000, simulated: true });
    shared.connectHost("h8", "node-s", true);
    shared.ingest("h8", makeSnapshot([makeGpu()], Date.now()));
    const build = vi.spyOn(shared, "snapshot");
    const live = await startLiveServer(shared, { tickMs: 3_600_000, flushMs: 1000 });
    try {
      const sockets = Array.from({ length: 3 }, () => live.connect().socket);
      const snapshots = await Promise.all(sockets.map((socket) => new Promise<{ gpus: unknown[]; serverTime: string }>((resolve) => socket.once("fleet:snapshot", resolve))));
      expect(snapshots.map((snapshot) => snapshot.gpus.length)).toEqual([1, 1, 1]);
      // Connections that straddle a flush (a slow machine) get the next one's.
      expect(build.mock.calls.length).toBeLessThan(3);
      expect(new Set(snapshots.map((snapshot) => snapshot.serverTime)).size).toBe(build.mock.calls.length);
    } finally {
      await live.close();
    }
  });
});

describe("the display scope", () => {
  const SECRETS = {
    purpose: "purpose-nobody-on-the-corridor-reads",
    bookedById: "user-id-of-the-booker",
    bookerLogin: "booker-login-name",
    reservationId: "reservation-id-0042",
    command: "python leak.py --api-key=hunter2",
    container: "container-3f2a1b9c",
    login: "intruder-login-name",
    slurm: "slurm-job-98765",
  };

  it("gets state, load, memory, temperature, bookedBy name and end, hosts and alerts: none of the rest", async () => {
    const walls = new FleetState({ offlineAfterMs: 5000, simulated: true });
    const gpu = makeGpu({ utilizationGpuPct: 64.6, memoryUsedMiB: 1024, temperatureC: 71.2 });
    const other = makeGpu({ index: 0 });
    const endsAt = new Date(Date.now() + 3_600_000).toISOString();
    const booking: LiveBooking = {
      reservationId: SECRETS.reservationId,
      hostId: "h-wall",
      hostName: "node-wall",
      gpus: [{ uuid: gpu.uuid, index: 0 }],
      bookedBy: { id: SECRETS.bookedById, username: SECRETS.bookerLogin, name: "Booker Person" },
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      endsAt,
      purpose: SECRETS.purpose,
    };
    const state: GpuReconciliation = {
      state: "conflict",
      reservationId: SECRETS.reservationId,
      bookedBy: booking.bookedBy,
      processes: [
        {
          pid: 99,
          runner: { id: "intruder-id", username: SECRETS.login, name: "Intruder" },
          reservationId: null,
          login: SECRETS.login,
          evidence: { kind: "container", value: SECRETS.container },
          intruder: true,
        },
      ],
      problem: null,
    };
    const live = await startLiveServer(walls, {
      tickMs: 50,
      flushMs: 20,
      authenticate,
      bookings: { current: () => [booking], subscribe: () => () => {} },
      states: { current: () => ({ [gpu.uuid]: state }), changed: () => ({ [gpu.uuid]: state }) },
      openAlerts: () => 3,
    });
    try {
      walls.connectHost("h-wall", "node-wall", true);
      walls.connectHost("h-else", "node-else", true);
      const processes = [
        makeProcess(gpu, {
          pid: 99,
          user: SECRETS.login,
          command: SECRETS.command,
          container: SECRETS.container,
          reservationId: SECRETS.reservationId,
          slurmJobId: SECRETS.slurm,
        }),
      ];
      walls.ingest("h-wall", makeSnapshot([gpu], Date.now(), { host: { name: "node-wall", driverVersion: null, cudaVersion: null }, processes }));
      walls.ingest("h-else", makeSnapshot([other], Date.now(), { host: { name: "node-else", driverVersion: null, cudaVersion: null } }));

      const { socket, frames } = live.connect({ token: "gpd_disp_good", hosts: ["NODE-WALL"] });
      const wall = watchDisplay(socket);
      let fleetMessages = 0;
      socket.on("fleet:snapshot", () => (fleetMessages += 1));
      socket.on("fleet:delta", () => (fleetMessages += 1));
      socket.on("fleet:bookings", () => (fleetMessages += 1));
      await until(() => wall.state().hasSnapshot);
      // Readings keep coming: deltas too must say nothing more.
      for (let step = 1; step <= 3; step += 1) {
        walls.ingest("h-wall", makeSnapshot([{ ...gpu, utilizationGpuPct: 10 * step }], Date.now() + step, { host: { name: "node-wall", driverVersion: null, cudaVersion: null }, processes }));
        await new Promise((resolve) => setTimeout(resolve, 80));
      }
      await until(() => wall.state().gpus[gpu.uuid]?.utilizationPct === 30, 3000, "the last reading");

      expect(wall.state().hosts.map((host) => host.name)).toEqual(["node-wall"]);
      expect(wall.state().gpus[gpu.uuid]).toEqual({
        uuid: gpu.uuid,
        hostId: "h-wall",
        index: 0,
        model: gpu.name,
        state: "conflict",
        utilizationPct: 30,
        memoryUsedMiB: 1024,
        memoryTotalMiB: 81559,
        temperatureC: 71,
        bookedByName: "Booker Person",
        bookedUntil: endsAt,
      });
      expect(wall.state().openAlerts).toBe(3);
      expect(Object.keys(wall.state().gpus)).not.toContain(other.uuid);
      expect(fleetMessages).toBe(0);

      const raw = frames.join("\n");
      expect(raw).toContain("Booker Person");
      for (const secret of Object.values(SECRETS)) expect(raw).not.toContain(secret);
      expect(raw).not.toContain(other.uuid);
    } finally {
      await live.close();
    }
  });

  it("is what a signed-in person's /display asks for, and members keep the full feed", async () => {
    const mixed = new FleetState({ offlineAfterMs: 5000, simulated: true });
    const live = await startLiveServer(mixed, { tickMs: 3_600_000, flushMs: 20, authenticate });
    try {
      const gpu = makeGpu();
      mixed.connectHost("h-m", "node-m", true);
      mixed.ingest("h-m", makeSnapshot([gpu], Date.now(), { processes: [makeProcess(gpu, { command: "python member-sees-this.py" })] }));
      const asDisplay = watchDisplay(live.connect({ scope: "display" }, { cookie: "gpudesk.session_token=ok" }).socket);
      const { socket, frames } = live.connect({ token: "gpd_pat_member" });
      const member = watchMember(socket);
      await until(() => asDisplay.state().hasSnapshot && member.state().hasSnapshot);
      expect(asDisplay.state().gpus[gpu.uuid]?.state).toBe("unbooked_use");
      expect(frames.join("\n")).toContain("member-sees-this.py");
    } finally {
      await live.close();
    }
  });

  it("sends a new screen its snapshot, then the next flush's delta; the room's other screens get every change once", async () => {
    const held = new FleetState({ offlineAfterMs: 5000, simulated: true });
    // As for members: the new screen's snapshot goes while the pacer still holds a reading.
    const live = await startLiveServer(held, { tickMs: 3_600_000, flushMs: 20, minHoldMs: 400, maxHoldMs: 400 });
    try {
      const gpu = makeGpu({ utilizationGpuPct: 10 });
      const host = { name: "node-w", driverVersion: null, cudaVersion: null };
      const start = Date.now() - 10_000;
      held.connectHost("h-w", "node-w", true);
      held.ingest("h-w", makeSnapshot([gpu], start, { host }));
      held.drainDelta();
      const first = live.connect({ scope: "display", hosts: ["node-w"] });
      const firstWall = watchDisplay(first.socket);
      await until(() => firstWall.state().hasSnapshot);
      held.ingest("h-w", makeSnapshot([{ ...gpu, utilizationGpuPct: 64 }], start + 4000, { host }));
      const second = live.connect({ scope: "display", hosts: ["node-w"] });
      const secondWall = watchDisplay(second.socket);
      await until(() => secondWall.state().hasSnapshot, 3000, "the second screen's snapshot");
      held.ingest("h-w", makeSnapshot([{ ...gpu, utilizationGpuPct: 65 }], start + 5000, { host }));
      await until(() => [firstWall, secondWall].every((wall) => wall.state().gpus[gpu.uuid]?.utilizationPct === 65), 3000, "the next reading");

      // What each screen showed after each message, from its raw frames.
      const shownAfterEach = (frames: string[]) => {
        let state = initialDisplayFeedState;
        return messagesIn<DisplaySnapshotWire & DisplayDeltaWire>(frames, ["display:snapshot", "display:delta"]).map(({ name, wire }) => {
          state = name === "display:snapshot" ? applyDisplaySnapshot(state, wire, Date.now()) : applyDisplayDelta(state, wire, Date.now());
          return `${name} ${state.gpus[gpu.uuid]?.utilizationPct}`;
        });
      };
      expect(shownAfterEach(second.frames)).toEqual(["display:snapshot 64", "display:delta 65"]);
      // Before this, a snapshot's flush took the held reading in for the room's other screens without sending it: 64 never came.
      expect(shownAfterEach(first.frames)).toEqual(["display:snapshot 10", "display:delta 64", "display:delta 65"]);
    } finally {
      await live.close();
    }
  });

  it("brings a screen a host it names that joins the fleet later, and only that one", async () => {
    const later = new FleetState({ offlineAfterMs: 5000, simulated: true });
    const live = await startLiveServer(later, { tickMs: 100, flushMs: 20, authenticate });
    try {
      const wall = watchDisplay(live.connect({ token: "gpd_disp_good", hosts: ["node-late"] }).socket);
      await until(() => wall.state().hasSnapshot);
      expect(wall.state().hosts).toEqual([]);
      const gpu = makeGpu();
      later.connectHost("h-late", "node-late", true);
      later.connectHost("h-other", "node-other", true);
      later.ingest("h-late", makeSnapshot([gpu], Date.now(), { host: { name: "node-late", driverVersion: null, cudaVersion: null } }));
      later.ingest("h-other", makeSnapshot([makeGpu()], Date.now(), { host: { name: "node-other", driverVersion: null, cudaVersion: null } }));
      await until(() => wall.state().gpus[gpu.uuid]?.state === "free", 3000, "the late host's GPU");
      expect(wall.state().hosts.map((host) => [host.name, host.online])).toEqual([["node-late", true]]);
      expect(Object.keys(wall.state().gpus)).toEqual([gpu.uuid]);
    } finally {
      await live.close();
    }
  });
});
