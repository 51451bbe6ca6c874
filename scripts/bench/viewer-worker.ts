/**
 * One viewer process of the benchmark: many `/live` connections in the
 * member scope (a member's personal token: the fleet view's feed), each
 * expanding every delta as a browser does (socket.io-client, then
 * lib/live/live-wire.ts), timing each GPU sample from its `sampledAt` to the
 * delta that brought it, and noting which GPU-seconds it never got.
 *
 * Protocol with scripts/bench/run.ts over IPC:
 *   ← config           → { type: "connected", count } as viewers get their snapshot
 *   ← { type: "window", fromMs, toMs }   start counting samples taken in [fromMs, toMs)
 *   ← { type: "report" }                 → { type: "report", ... } (ViewerReport)
 */
import { io, type Socket } from "socket.io-client";
import { LIVE_NAMESPACE, type LiveGpu } from "@/lib/live/live";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live/live-events";
import { deltaPointsOf } from "@/lib/live/live-points";
import { LIVE_FORMAT_VERSION, expandFleetDelta, type FleetDeltaWire, type FleetSnapshotWire, type SlotTable } from "@/lib/live/live-wire";
import { addTallies, LatencyHistogram, UpdateLedger, type UpdateTally } from "./stats";

export interface ViewerWorkerConfig {
  /** One entry per viewer: the instance it watches. */
  serverUrls: string[];
  /** A member's personal token: the viewers watch the member scope. */
  viewerToken: string;
  /** Every GPU of the fleet (all instances), for the lost-update count. */
  gpuUuids: string[];
  lateMs: number;
  /** The viewers of this process read one expansion of each delta (per server) instead of one each (`--decode-once`). */
  decodeOnce?: boolean;
}

export interface ViewerReport {
  type: "report";
  viewers: number;
  histogram: [number, number][];
  /** Latency as seen by the first viewer of the process to decode each delta. */
  firstHistogram: [number, number][];
  tally: UpdateTally;
  /** Connections lost during the run (each costs the updates until the next snapshot). */
  disconnects: number;
  /** Bytes of socket.io messages received per viewer per second, over the window. */
  bytesPerViewerPerSecond: number;
  deltasPerViewerPerSecond: number;
  /** Where the latency goes (docs/benchmark.md, "Where the latency goes"), sparse histograms in ms. */
  stages: ViewerStages;
}

/** Each reading's way from its sample to a viewer, split at the delta's server time `t` (when the server drained it). */
export interface ViewerStages {
  /** Sample taken → the server drains it into a delta (agent, network, ingest, the flush's wait); once per reading. */
  sampleToDelta: [number, number][];
  /** The delta's server time → this viewer's handler starts (encoding, socket writes, the wire, socket.io's parse, the wait behind this process's other viewers); per viewer. */
  deltaToViewer: [number, number][];
  /** The same for the first viewer of the process to get each delta (no wait behind the others). */
  deltaToFirstViewer: [number, number][];
  /** Decoding one delta (expandFleetDelta), µs of wall time, summed, and the number of deltas. */
  decodeMicros: number;
  decodedDeltas: number;
}

interface Viewer {
  socket: Socket<LiveServerToClient, LiveClientToServer>;
  ledger: UpdateLedger | null;
  /** What the viewer holds, to expand deltas against (changed in place: a browser's state without React's copies). */
  state: ViewState;
}

/** A delta as its viewers read it: the GPU entries, and each reading it brings. */
interface Expanded {
  t: number;
  gpus: LiveGpu[];
  points: { uuid: string; t: number }[];
}

/** What a viewer expands deltas against: its own, or (`decodeOnce`) one per server shared by the process's viewers of it. */
interface ViewState {
  gpus: Record<string, LiveGpu>;
  slots: SlotTable;
  /**
   * The latest expansions by delta time: viewers of one process read their
   * sockets in turn, so one may still be a delta or two behind another.
   */
  recent: Map<number, Expanded>;
}

const RECENT_EXPANSIONS = 32;

function expand(wire: FleetDeltaWire, state: ViewState): Expanded {
  const known = state.recent.get(wire.t);
  if (known) return known;
  const delta = expandFleetDelta(wire, state.gpus, state.slots);
  for (const gpu of delta.gpus) state.gpus[gpu.uuid] = gpu;
  const points: Expanded["points"] = [];
  // As a browser reads them: the GPU entries, and `points` where a GPU has more than its latest reading.
  for (const gpu of delta.gpus) for (const point of deltaPointsOf(delta, gpu.uuid, gpu)) points.push({ uuid: gpu.uuid, t: point.t });
  const expanded = { t: wire.t, gpus: delta.gpus, points };
  state.recent.set(wire.t, expanded);
  if (state.recent.size > RECENT_EXPANSIONS) state.recent.delete(state.recent.keys().next().value!);
  return expanded;
}

async function run(config: ViewerWorkerConfig): Promise<void> {
  const shared = new Map<string, ViewState>();
  const histogram = new LatencyHistogram();
  /**
   * The same readings as seen by whichever viewer of this process decoded the
   * delta first: the others wait their turn behind it on this process's one
   * thread, which is the benchmark's cost, not the server's.
   */
  const firstHistogram = new LatencyHistogram();
  const decoded = new Set<number>();
  const sampleToDelta = new LatencyHistogram();
  const deltaToViewer = new LatencyHistogram();
  const deltaToFirstViewer = new LatencyHistogram();
  let decodeMicros = 0;
  let decodedDeltas = 0;
  const viewers: Viewer[] = [];
  let window: { fromMs: number; toMs: number } | null = null;
  let connected = 0;
  let disconnects = 0;
  let bytes = 0;
  let deltas = 0;

  for (const [i, serverUrl] of config.serverUrls.entries()) {
    // One after another: each connection gets a full snapshot (megabytes at 4,000 GPUs).
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    const socket: Socket<LiveServerToClient, LiveClientToServer> = io(new URL(LIVE_NAMESPACE, serverUrl).toString(), {
      auth: { token: config.viewerToken, v: LIVE_FORMAT_VERSION },
      transports: ["websocket"],
    });
    const ownState = (): ViewState => ({ gpus: {}, slots: {}, recent: new Map() });
    if (config.decodeOnce && !shared.has(serverUrl)) shared.set(serverUrl, ownState());
    const viewer: Viewer = { socket, ledger: null, state: config.decodeOnce ? shared.get(serverUrl)! : ownState() };
    viewers.push(viewer);
    let counted = false;
    socket.io.on("open", () => {
      socket.io.engine.on("data", (data: unknown) => {
        if (window && Date.now() >= window.fromMs && Date.now() < window.toMs) {
          bytes += typeof data === "string" ? data.length : (data as ArrayBuffer).byteLength ?? 0;
        }
      });
    });
    socket.on("fleet:snapshot", (snapshot: FleetSnapshotWire) => {
      // A later snapshot is never older than the state it replaces: shared or not, the next delta expands against it.
      const state = viewer.state;
      state.gpus = {};
      state.slots = {};
      state.recent.clear();
      snapshot.gpus.forEach((gpu, index) => {
        state.gpus[gpu.uuid] = gpu;
        state.slots[snapshot.slots[index]!] = gpu.uuid;
      });
      if (counted) return;
      counted = true;
      connected += 1;
      process.send?.({ type: "connected", count: connected });
    });
    socket.on("disconnect", () => {
      disconnects += 1;
    });
    socket.on("fleet:delta", (wire: FleetDeltaWire) => {
      const receivedAt = Date.now();
      const decodeStart = performance.now();
      const delta = expand(wire, viewer.state);
      const decodeEnd = performance.now();
      const ledger = viewer.ledger;
      if (!ledger || !window) return;
      if (receivedAt >= window.fromMs && receivedAt < window.toMs) {
        deltas += 1;
        decodedDeltas += 1;
        decodeMicros += (decodeEnd - decodeStart) * 1000;
      }
      const first = !decoded.has(wire.t);
      if (first) {
        decoded.add(wire.t);
        if (decoded.size > 1000) decoded.clear();
      }
      for (const point of delta.points) {
        if (!ledger.covers(point.t)) continue;
        const latency = receivedAt - point.t;
        histogram.record(latency);
        deltaToViewer.record(receivedAt - wire.t);
        if (first) {
          firstHistogram.record(latency);
          sampleToDelta.record(wire.t - point.t);
          deltaToFirstViewer.record(receivedAt - wire.t);
        }
        ledger.mark(point.uuid, point.t, latency > config.lateMs);
      }
    });
    socket.on("connect_error", (error) => process.stderr.write(`[viewer] ${error.message}\n`));
  }

  process.on("message", (message: { type?: string; fromMs?: number; toMs?: number }) => {
    if (message?.type === "window" && message.fromMs !== undefined && message.toMs !== undefined) {
      window = { fromMs: message.fromMs, toMs: message.toMs };
      for (const viewer of viewers) viewer.ledger = new UpdateLedger(config.gpuUuids, window.fromMs, window.toMs);
    } else if (message?.type === "report") {
      let tally: UpdateTally = { expected: 0, onTime: 0, late: 0, lost: 0 };
      for (const viewer of viewers) if (viewer.ledger) tally = addTallies(tally, viewer.ledger.tally());
      const seconds = window ? (window.toMs - window.fromMs) / 1000 : 1;
      const report: ViewerReport = {
        type: "report",
        viewers: viewers.length,
        histogram: histogram.toSparse(),
        firstHistogram: firstHistogram.toSparse(),
        tally,
        disconnects,
        bytesPerViewerPerSecond: bytes / viewers.length / seconds,
        deltasPerViewerPerSecond: deltas / viewers.length / seconds,
        stages: {
          sampleToDelta: sampleToDelta.toSparse(),
          deltaToViewer: deltaToViewer.toSparse(),
          deltaToFirstViewer: deltaToFirstViewer.toSparse(),
          decodeMicros,
          decodedDeltas,
        },
      };
      process.send?.(report);
    } else if (message?.type === "stop") {
      for (const viewer of viewers) viewer.socket.close();
      process.exit(0);
    }
  });
}

process.once("message", (config: ViewerWorkerConfig) => void run(config));
process.on("disconnect", () => process.exit(0));
