import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "socket.io";
import { io as connect } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { FleetDelta, FleetSnapshot } from "@/lib/live";
import { FleetState } from "@/server/fleet/fleet-state";
import { attachLiveEndpoint } from "@/server/fleet/live-endpoint";
import { makeGpu, makeSnapshot } from "@/server/testing/factories";

const fleet = new FleetState({ offlineAfterMs: 5000, simulated: true });
const http = createServer();
const io = new Server(http);
let url = "";
let stop = () => {};

beforeAll(async () => {
  stop = attachLiveEndpoint(io.of("/live") as never, fleet, {
    tickMs: 100,
    // Stands in for the server's check: a session cookie or a display token.
    authenticate: async ({ headers, token }) => token === "gpd_disp_good" || headers.get("cookie") === "gpudesk.session_token=ok",
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/live`;
});
afterAll(async () => {
  stop();
  await new Promise<void>((resolve) => io.close(() => resolve()));
});

describe("the /live namespace", () => {
  it("refuses a browser without a session or display token", async () => {
    const socket = connect(url, { transports: ["websocket"], reconnection: false });
    const error = await new Promise<Error>((resolve) => socket.once("connect_error", resolve));
    expect(error.message).toBe("unauthorized");
    socket.close();
  });

  it("sends a display a snapshot on connect, then coalesced deltas", async () => {
    const gpu = makeGpu();
    fleet.connectHost("h1", "node-a", true);
    fleet.ingest("h1", makeSnapshot([gpu], Date.now()));
    const socket = connect(url, { transports: ["websocket"], reconnection: false, auth: { token: "gpd_disp_good" } });
    const snapshot = await new Promise<FleetSnapshot>((resolve) => socket.once("fleet:snapshot", resolve));
    expect(snapshot.gpus.map((entry) => entry.uuid)).toContain(gpu.uuid);

    const delta = new Promise<FleetDelta>((resolve) => socket.once("fleet:delta", resolve));
    fleet.ingest("h1", makeSnapshot([{ ...gpu, utilizationGpuPct: 12 }], Date.now() + 10));
    fleet.ingest("h1", makeSnapshot([{ ...gpu, utilizationGpuPct: 34 }], Date.now() + 20));
    const received = await delta;
    expect(received.gpus).toHaveLength(1);
    expect(received.gpus[0].utilizationGpuPct).toBe(34);

    const history = await socket.emitWithAck("gpu:history", gpu.uuid);
    expect(history?.points.length).toBeGreaterThanOrEqual(3);
    expect(await socket.emitWithAck("gpu:history", "GPU-unknown")).toBeNull();
    socket.close();
  });

  it("sends new readings at the next flush, without waiting for the rules' tick", async () => {
    const quick = new FleetState({ offlineAfterMs: 5000, simulated: true });
    const quickHttp = createServer();
    const server = new Server(quickHttp);
    await new Promise<void>((resolve) => quickHttp.listen(0, "127.0.0.1", resolve));
    const port = (quickHttp.address() as AddressInfo).port;
    const stopQuick = attachLiveEndpoint(server.of("/live") as never, quick, { tickMs: 3_600_000, flushMs: 20 });
    const gpu = makeGpu();
    quick.connectHost("h9", "node-q", true);
    const socket = connect(`http://127.0.0.1:${port}/live`, { transports: ["websocket"], reconnection: false });
    await new Promise((resolve) => socket.once("fleet:snapshot", resolve));
    const delta = new Promise<FleetDelta>((resolve) => socket.once("fleet:delta", resolve));
    quick.ingest("h9", makeSnapshot([gpu], Date.now()));
    expect((await delta).gpus.map((entry) => entry.uuid)).toEqual([gpu.uuid]);
    socket.close();
    stopQuick();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("coalesces readings that arrive spread out into about one delta a second", async () => {
    const spread = new FleetState({ offlineAfterMs: 5000, simulated: true });
    const spreadHttp = createServer();
    const server = new Server(spreadHttp);
    await new Promise<void>((resolve) => spreadHttp.listen(0, "127.0.0.1", resolve));
    const port = (spreadHttp.address() as AddressInfo).port;
    const stopSpread = attachLiveEndpoint(server.of("/live") as never, spread, { tickMs: 3_600_000, flushMs: 20, minDeltaIntervalMs: 1000 });
    spread.connectHost("h7", "node-t", true);
    const socket = connect(`http://127.0.0.1:${port}/live`, { transports: ["websocket"], reconnection: false });
    await new Promise((resolve) => socket.once("fleet:snapshot", resolve));
    const deltas: FleetDelta[] = [];
    socket.on("fleet:delta", (delta: FleetDelta) => deltas.push(delta));
    // Eight readings arriving 100 ms apart (a host whose readings straggle in).
    const gpu = makeGpu();
    for (let step = 0; step < 8; step += 1) {
      spread.ingest("h7", makeSnapshot([{ ...gpu, utilizationGpuPct: step * 10 }], Date.now()));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // No sleep-then-count: wait for the delta that carries the last reading, then check the
    // pacing on the server's own clock (readings share deltas; none two within a second).
    await vi.waitFor(() => expect(deltas.at(-1)?.gpus[0]?.utilizationGpuPct).toBe(70), { timeout: 15_000, interval: 50 });
    const sentAt = deltas.map((delta) => Date.parse(delta.serverTime));
    for (let i = 1; i < sentAt.length; i += 1) expect(sentAt[i] - sentAt[i - 1]).toBeGreaterThanOrEqual(1000);
    socket.close();
    stopSpread();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("accepts a signed-in browser by its cookie", async () => {
    const gpu = makeGpu();
    fleet.connectHost("h-cookie", "node-cookie", true);
    fleet.ingest("h-cookie", makeSnapshot([gpu], Date.now()));
    const socket = connect(url, { transports: ["websocket"], reconnection: false, extraHeaders: { cookie: "gpudesk.session_token=ok" } });
    const snapshot = await new Promise<FleetSnapshot>((resolve, reject) => {
      socket.once("fleet:snapshot", resolve);
      socket.once("connect_error", reject);
    });
    // The fleet as a signed-in browser sees it, its host and GPU included.
    expect(snapshot.hosts.map((host) => host.name)).toContain("node-cookie");
    expect(snapshot.gpus.map((entry) => entry.uuid)).toContain(gpu.uuid);
    socket.close();
  });
  it("builds one snapshot for the connections that arrive within one flush", async () => {
    const shared = new FleetState({ offlineAfterMs: 5000, simulated: true });
    shared.connectHost("h8", "node-s", true);
    shared.ingest("h8", makeSnapshot([makeGpu()], Date.now()));
    const build = vi.spyOn(shared, "snapshot");
    const sharedHttp = createServer();
    const server = new Server(sharedHttp);
    await new Promise<void>((resolve) => sharedHttp.listen(0, "127.0.0.1", resolve));
    const port = (sharedHttp.address() as AddressInfo).port;
    const stopShared = attachLiveEndpoint(server.of("/live") as never, shared, { tickMs: 3_600_000, flushMs: 1000 });
    const sockets = Array.from({ length: 3 }, () => connect(`http://127.0.0.1:${port}/live`, { transports: ["websocket"], reconnection: false }));
    const snapshots = await Promise.all(sockets.map((socket) => new Promise<FleetSnapshot>((resolve) => socket.once("fleet:snapshot", resolve))));
    expect(snapshots.map((snapshot) => snapshot.gpus.length)).toEqual([1, 1, 1]);
    // Connections that straddle a flush (a slow machine) get the next one's.
    expect(build.mock.calls.length).toBeLessThan(3);
    expect(new Set(snapshots.map((snapshot) => snapshot.serverTime)).size).toBe(build.mock.calls.length);
    for (const socket of sockets) socket.close();
    stopShared();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
