import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Server } from "socket.io";
import { io as connect, type Socket } from "socket.io-client";
import type { AlertUpdate, AlertView, AlertsSnapshot } from "@/lib/domain/alerts";
import type { GpuReconciliation, GpuStatesAnswer } from "@/lib/domain/attribution";
import { LIVE_NAMESPACE } from "@/lib/live/live";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live/live-events";
import { LIVE_FORMAT_VERSION, type FleetDeltaWire, type FleetSnapshotWire } from "@/lib/live/live-wire";
import { announceAlertChanged } from "@/server/alerts/alert-events";
import { attachAlertsLive } from "@/server/alerts/alerts-live";
import { FleetState } from "@/server/fleet/fleet-state";
import { attachLiveEndpoint } from "@/server/live/live-endpoint";
import { staticDirectory } from "@/server/attribution/user-directory";
import { Tick } from "@/server/tick/tick";

/**
 * Alerts and GPU states on /live, with real sockets: each viewer gets the
 * alerts that concern them (admins all, a display none), and the GPU
 * states ride on the snapshot, the deltas and `gpu:states`.
 */

type Client = Socket<LiveServerToClient, LiveClientToServer>;

const viewers: Record<string, { id: string; username: string; name: string; role: "member" | "admin"; unixLogin: string | null } | null> = {
  alice: { id: "u-alice", username: "alice", name: "Alice", role: "member", unixLogin: "alice" },
  bob: { id: "u-bob", username: "bob", name: "Bob", role: "member", unixLogin: "bob" },
  root: { id: "u-root", username: "root", name: "Root", role: "admin", unixLogin: null },
  wall: null,
};

const conflict = (id: string, people: string[]): AlertView => ({
  id,
  kind: "conflict",
  subjectKey: `conflict:GPU-1:${id}`,
  host: { id: "h1", name: "node-a" },
  gpu: { uuid: "GPU-1", index: 1 },
  reservationId: "r1",
  bookedById: null,
  people: people.map((person) => ({ id: `u-${person}`, username: person, name: person })),
  message: "m",
  evidence: {},
  openedAt: new Date().toISOString(),
  closedAt: null,
  acknowledgedAt: null,
  acknowledgedBy: null,
});

const state = (value: GpuReconciliation["state"]): GpuReconciliation => ({ state: value, reservationId: null, bookedBy: null, processes: [], problem: null });

let url: string;
let stop: () => Promise<void>;
let nextStates: Record<string, GpuReconciliation> | null = null;
const clients: Client[] = [];

beforeAll(async () => {
  const http = createServer();
  const io = new Server(http);
  const namespace = io.of(LIVE_NAMESPACE) as never;
  const fleet = new FleetState({ offlineAfterMs: 5000, simulated: true });
  const live = attachLiveEndpoint(namespace, fleet, {
    authenticate: async ({ token }) => {
      if (token === null || !(token in viewers)) return null;
      const viewer = viewers[token];
      return viewer ? { kind: "user", userId: viewer.id, role: viewer.role, sessionId: null } : { kind: "display", displayId: token };
    },
    gpuStates: () => ({ "GPU-1": state("conflict") }),
  });
  // The tick, with the states this test chooses in place of the reconciliation.
  const tick = new Tick({
    fleet,
    bookings: { current: () => [] },
    directory: staticDirectory([]),
    consumers: [live.consumer],
    reconciler: {
      current: () => ({ "GPU-1": state("conflict") }),
      run: () => {
        const states = nextStates;
        nextStates = null;
        return states ?? {};
      },
    },
  });
  await tick.start(100);
  const stopAlerts = attachAlertsLive(namespace, {
    listOpen: async (viewer) => [conflict("open-1", ["alice", "bob"])].filter((alert) => viewer.role === "admin" || alert.people.some((person) => person.id === viewer.id)),
    gpuStates: () => ({ "GPU-1": state("booked_in_use") }),
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}${LIVE_NAMESPACE}`;
  stop = async () => {
    await tick.stop();
    live.stop();
    stopAlerts();
    for (const client of clients) client.close();
    await new Promise<void>((resolve) => io.close(() => resolve()));
  };
});

afterAll(async () => {
  await stop();
});

interface Watcher {
  client: Client;
  /** The member scope's snapshot, or a display's (without GPU states). */
  snapshot: Promise<Partial<FleetSnapshotWire>>;
  alerts: Promise<AlertsSnapshot>;
  updates: AlertUpdate[];
  deltas: FleetDeltaWire[];
}

function watch(token: string): Watcher {
  const client: Client = connect(url, { auth: { token, v: LIVE_FORMAT_VERSION }, transports: ["websocket"] });
  clients.push(client);
  const updates: AlertUpdate[] = [];
  const deltas: FleetDeltaWire[] = [];
  client.on("alerts:update", (update) => updates.push(update));
  client.on("fleet:delta", (delta) => deltas.push(delta));
  return {
    client,
    snapshot: new Promise((resolve) => {
      client.once("fleet:snapshot", resolve);
      client.once("display:snapshot", () => resolve({}));
    }),
    alerts: new Promise((resolve) => client.once("alerts:snapshot", resolve)),
    updates,
    deltas,
  };
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("alerts and GPU states on /live", () => {
  it("sends each viewer the alerts that concern them, on connect and as they change", async () => {
    const [alice, bob, root, wall] = ["alice", "bob", "root", "wall"].map(watch);
    expect((await alice.alerts).alerts.map((alert) => alert.id)).toEqual(["open-1"]);
    expect((await root.alerts).alerts.map((alert) => alert.id)).toEqual(["open-1"]);
    await bob.alerts;
    await wall.snapshot;

    announceAlertChanged({ serverTime: new Date().toISOString(), event: "opened", alert: conflict("new-1", ["alice"]) });
    await until(() => alice.updates.length === 1 && root.updates.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(alice.updates[0]).toMatchObject({ event: "opened", alert: { id: "new-1" } });
    expect(bob.updates).toEqual([]);
    expect(wall.updates).toEqual([]);
  });

  it("carries the GPU states in the snapshot, in the deltas that change them, and on request", async () => {
    const viewer = watch("alice");
    expect((await viewer.snapshot).gpuStates).toEqual({ "GPU-1": state("conflict") });
    nextStates = { "GPU-1": state("free") };
    await until(() => viewer.deltas.some((delta) => delta.s !== undefined));
    expect(viewer.deltas.find((delta) => delta.s)).toEqual({ v: LIVE_FORMAT_VERSION, t: expect.any(Number), s: { "GPU-1": state("free") } });
    const answer = await new Promise<GpuStatesAnswer>((resolve) => viewer.client.emit("gpu:states", resolve));
    expect(answer.states).toEqual({ "GPU-1": state("booked_in_use") });
    // A wall display asks in vain: the states name who runs where.
    const wall = watch("wall");
    await wall.snapshot;
    const refused = await new Promise<GpuStatesAnswer>((resolve) => wall.client.emit("gpu:states", resolve));
    expect(refused.states).toEqual({});
  });
});
