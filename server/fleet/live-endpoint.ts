import type { Namespace } from "socket.io";
import type { FleetDelta, FleetSnapshot, LiveBooking, LiveClientToServer, LiveServerToClient } from "@/lib/live";
import type { FleetState } from "@/server/fleet/fleet-state";
import { log } from "@/server/log";

type LiveNamespace = Namespace<LiveClientToServer, LiveServerToClient>;

/** Active and upcoming bookings, and word when they change (server/reservations/booking-feed.ts). */
export interface LiveBookingsSource {
  current(): LiveBooking[];
  subscribe(listener: (bookings: LiveBooking[]) => void): () => void;
}

export interface LiveEndpointOptions {
  /** Who may watch: the handshake's cookies (session) or its `auth.token` (display token). */
  authenticate?: (request: { headers: Headers; token: string | null }) => Promise<boolean>;
  /** How often the offline check and the per-tick rules (`extras.tick`) run; default 1 s. */
  tickMs?: number;
  /**
   * How often new readings go out, at most; default 100 ms. Agents sample on
   * whole seconds, so a delta per tick would hold each reading until the
   * tick's phase came round (up to a second, different after every restart);
   * a short flush sends it almost at once and still coalesces a burst of
   * agents into one or two deltas per second.
   */
  flushMs?: number;
  /**
   * The least time between two deltas; default 250 ms: readings of one second
   * arrive spread out, and a burst of them makes a few deltas rather than one
   * per flush, holding none back by more than this. (Browsers redraw for
   * readings at most once a second whatever comes: lib/live-fleet-store.ts.)
   */
  minDeltaIntervalMs?: number;
  /** With a source, snapshots carry the bookings and each change goes out as `fleet:bookings`. */
  bookings?: LiveBookingsSource;
  /** More for every snapshot and every tick's delta (the GPU states of server/alerts/start-alerts.ts). */
  extras?: {
    snapshot(): Partial<FleetSnapshot>;
    /** Runs once per tick, after the offline check; what it returns joins the tick's delta. */
    tick(): Partial<FleetDelta> | null;
  };
}

function handshakeHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(", "));
  }
  return headers;
}

/**
 * The `/live` namespace for browsers: a full snapshot on every connection
 * (at the next flush, shared by the connections of that flush), then
 * coalesced deltas for everyone: new readings within `flushMs` of their
 * arrival but at most one delta per `minDeltaIntervalMs`, carrying the rules' results
 * (GPU states) of the ticks since the last one. Returns a stop function.
 */
export function attachLiveEndpoint(namespace: LiveNamespace, fleet: FleetState, options: LiveEndpointOptions = {}): () => void {
  const { authenticate, tickMs = 1000, flushMs = 100, minDeltaIntervalMs = 250, bookings, extras } = options;
  if (authenticate) {
    namespace.use((socket, next) => {
      const auth = socket.handshake.auth as { token?: unknown } | undefined;
      const token = typeof auth?.token === "string" && auth.token.length > 0 ? auth.token : null;
      authenticate({ headers: handshakeHeaders(socket.handshake.headers), token })
        .then((allowed) => next(allowed ? undefined : new Error("unauthorized")))
        .catch((error: unknown) => {
          log.warn(`could not authenticate a /live connection: ${error instanceof Error ? error.message : String(error)}`);
          next(new Error("unauthorized"));
        });
    });
  }

  // Connections waiting for their snapshot. They get it at the next flush,
  // all of them one snapshot built and encoded once (a broadcast encodes
  // once for its sockets): at 4,000 GPUs that is megabytes and a second of
  // work, which 50 viewers connecting together each paid in turn. Sent
  // just before the flush drains a delta, so each socket's snapshot comes
  // first and the deltas after it carry every later change.
  const awaitingSnapshot = new Set<string>();
  const sendSnapshots = () => {
    if (awaitingSnapshot.size === 0) return;
    const snapshot = { ...fleet.snapshot(), ...extras?.snapshot() };
    namespace.local.to([...awaitingSnapshot]).emit("fleet:snapshot", bookings ? { ...snapshot, bookings: bookings.current() } : snapshot);
    awaitingSnapshot.clear();
  };

  namespace.on("connection", (socket) => {
    awaitingSnapshot.add(socket.id);
    socket.on("disconnect", () => awaitingSnapshot.delete(socket.id));
    socket.on("gpu:history", (uuid, reply) => {
      if (typeof reply !== "function") return;
      reply(typeof uuid === "string" && uuid.length <= 128 ? fleet.history(uuid) : null);
    });
  });

  // `.local`: with several instances (Redis adapter) every instance has the
  // whole fleet and its own booking feed, and tells only its own viewers;
  // a broadcast through the adapter would reach each viewer once per instance.
  const stopBookings = bookings?.subscribe((list) => {
    namespace.local.emit("fleet:bookings", { serverTime: new Date().toISOString(), bookings: list });
  });

  // What the last tick's rules found, held until the next delta goes out with the readings.
  let pendingExtra: Partial<FleetDelta> | null = null;
  let lastDeltaAt = 0;
  const send = () => {
    sendSnapshots();
    // A few deltas a second at most: every delta is a message to every viewer. The first
    // reading after a quiet spell still goes out within `flushMs`.
    if (Date.now() - lastDeltaAt < minDeltaIntervalMs) return;
    let delta = fleet.drainDelta();
    if (pendingExtra) delta = { serverTime: new Date().toISOString(), hosts: [], gpus: [], points: {}, removedHostIds: [], ...delta, ...pendingExtra };
    pendingExtra = null;
    if (!delta) return;
    lastDeltaAt = Date.now();
    namespace.local.emit("fleet:delta", delta);
  };
  const timer = setInterval(() => {
    fleet.checkOffline();
    const extra = extras?.tick();
    if (extra) pendingExtra = { ...pendingExtra, ...extra, ...(extra.gpuStates ? { gpuStates: { ...pendingExtra?.gpuStates, ...extra.gpuStates } } : {}) };
    send();
  }, tickMs);
  const flusher = setInterval(send, flushMs);
  timer.unref();
  flusher.unref();
  return () => {
    clearInterval(timer);
    clearInterval(flusher);
    stopBookings?.();
  };
}
