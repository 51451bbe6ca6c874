import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "socket.io";
import { io as connect, type Socket } from "socket.io-client";
import { applyDisplayDelta, applyDisplaySnapshot, initialDisplayFeedState, type DisplayFeedState } from "@/lib/live/display-feed";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { FleetDelta } from "@/lib/live/live";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live/live-events";
import { applyGpuDelta, applyGpuSnapshot, initialGpuScopeState, type GpuScopeState } from "@/lib/live/gpu-scope-state";
import { applyDeltaWire, applySnapshotWire, initialLiveFleetState, type LiveFleetState } from "@/lib/live/live-fleet-state";
import { LIVE_FORMAT_VERSION, type FleetDeltaWire, type LiveHandshake } from "@/lib/live/live-wire";
import type { FleetState } from "@/server/fleet/fleet-state";
import { attachLiveEndpoint, type LiveEndpointOptions } from "@/server/live/live-endpoint";
import { staticDirectory } from "@/server/attribution/user-directory";
import { Tick } from "@/server/tick/tick";

/** Test helpers for `/live`: a server on a free port, and browsers that merge what they get as pages do. */

export type LiveClient = Socket<LiveServerToClient, LiveClientToServer>;

export interface LiveServerOptions extends LiveEndpointOptions {
  /** The tick's period (offline check, GPU states to the viewers); default 1 s. */
  tickMs?: number;
  /** Stands in for the reconciliation: the states now, and what a tick changed (null: nothing). Without it there are no states. */
  states?: { current(): Record<string, GpuReconciliation>; changed(): Record<string, GpuReconciliation> | null };
}

/** `/live` on a free port, fed by a real tick (server/tick/) whose only consumer is the endpoint. */
export async function startLiveServer(fleet: FleetState, options: LiveServerOptions = {}) {
  const http = createServer();
  const io = new Server(http);
  const namespace = io.of("/live");
  const { tickMs, states, ...endpointOptions } = options;
  const endpoint = attachLiveEndpoint(namespace as never, fleet, { ...endpointOptions, ...(states ? { gpuStates: () => states.current() } : {}) });
  const tick = new Tick({
    fleet,
    bookings: options.bookings ?? { current: () => [] },
    directory: staticDirectory([]),
    consumers: [endpoint.consumer],
    reconciler: { run: () => states?.changed() ?? {}, current: () => states?.current() ?? {} },
  });
  await tick.start(tickMs);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/live`;
  const clients: LiveClient[] = [];
  return {
    url,
    io,
    namespace,
    /** A socket with this handshake (the format version is added), and every raw frame it receives. */
    connect(auth: LiveHandshake = {}, extra: { cookie?: string; reconnection?: boolean; headers?: Record<string, string> } = {}) {
      const headers = { ...extra.headers, ...(extra.cookie ? { cookie: extra.cookie } : {}) };
      const socket: LiveClient = connect(url, {
        transports: ["websocket"],
        reconnection: extra.reconnection ?? false,
        auth: { v: LIVE_FORMAT_VERSION, ...auth },
        ...(Object.keys(headers).length > 0 ? { extraHeaders: headers } : {}),
      });
      clients.push(socket);
      const frames: string[] = [];
      socket.io.on("open", () => socket.io.engine.on("data", (data: unknown) => frames.push(typeof data === "string" ? data : "<binary>")));
      return { socket, frames };
    },
    async close() {
      for (const client of clients) client.close();
      await tick.stop();
      endpoint.stop();
      await new Promise<void>((resolve) => io.close(() => resolve()));
    },
  };
}

/** The member scope as a page holds it: the state, and each expanded delta. */
export function watchMember(socket: LiveClient) {
  let state: LiveFleetState = initialLiveFleetState;
  const deltas: FleetDelta[] = [];
  let snapshots = 0;
  socket.on("fleet:snapshot", (wire) => {
    snapshots += 1;
    state = applySnapshotWire(state, wire, Date.now());
  });
  socket.on("fleet:delta", (wire) => {
    const applied = applyDeltaWire(state, wire, Date.now());
    state = applied.state;
    if (applied.delta) deltas.push(applied.delta);
  });
  return { state: () => state, deltas, snapshots: () => snapshots };
}

/** One GPU's scope as the GPU page holds it: watched now and on every reconnect. */
export function watchGpu(socket: LiveClient, uuid: string) {
  let state: GpuScopeState = initialGpuScopeState(uuid);
  let snapshots = 0;
  let deltas = 0;
  const answers: boolean[] = [];
  const watch = () => socket.emit("gpu:watch", uuid, (answer) => answers.push(answer.ok));
  socket.on("connect", watch);
  if (socket.connected) watch();
  socket.on("gpu:snapshot", (wire) => {
    if (wire.u !== uuid) return;
    snapshots += 1;
    state = applyGpuSnapshot(state, wire, Date.now());
  });
  socket.on("gpu:delta", (wire) => {
    if (wire.u !== uuid) return;
    deltas += 1;
    state = applyGpuDelta(state, wire, Date.now());
  });
  return { state: () => state, snapshots: () => snapshots, deltas: () => deltas, answers };
}

/** The display scope as a wall screen holds it. */
export function watchDisplay(socket: LiveClient) {
  let state: DisplayFeedState = initialDisplayFeedState;
  let messages = 0;
  socket.on("display:snapshot", (wire) => {
    messages += 1;
    state = applyDisplaySnapshot(state, wire, Date.now());
  });
  socket.on("display:delta", (wire) => {
    messages += 1;
    state = applyDisplayDelta(state, wire, Date.now());
  });
  return { state: () => state, messages: () => messages };
}

/** Waits until `check` holds, polling; fails after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 3000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The events of the given names in a socket's raw frames (`connect().frames`), in the order they came. */
export function messagesIn<Wire>(frames: string[], names: string[]): { name: string; wire: Wire }[] {
  const messages: { name: string; wire: Wire }[] = [];
  for (const frame of frames) {
    const event = /^2\/live,(\[.*\])$/s.exec(frame);
    if (!event) continue;
    const [name, wire] = JSON.parse(event[1]) as [string, Wire];
    if (names.includes(name)) messages.push({ name, wire });
  }
  return messages;
}

/** The sample times a member or GPU delta brings (its rows, whole entries and replayed points): the chart points it adds. */
export function readingTimes(wire: FleetDeltaWire): number[] {
  const rows = (wire.r ?? []).map((group) => wire.t + Number(group[0]));
  const whole = (wire.n ?? []).map(([, gpu]) => Date.parse(gpu.sampledAt));
  const replayed = Object.values(wire.p ?? {}).flatMap(([offsets]) => offsets.map((offset) => wire.t + offset));
  return [...rows, ...whole, ...replayed].sort((x, y) => x - y);
}
