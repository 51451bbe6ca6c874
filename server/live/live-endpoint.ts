import type { Namespace, Socket } from "socket.io";
import { z } from "zod";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { FleetDelta } from "@/lib/live/live";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live/live-events";
import { LIVE_FORMAT_ERROR, LIVE_FORMAT_VERSION, memberSummaryOf } from "@/lib/live/live-wire";
import { DisplayScope, displayFilterKey } from "@/server/live/display-scope";
import { GpuScope, gpuRoom } from "@/server/live/gpu-scope";
import type { FleetState } from "@/server/fleet/fleet-state";
import { DeltaPacer } from "@/server/live/delta-pacer";
import { principalRoomsOf, type LiveViewer } from "@/server/access/live-revocation";
import { MemberEncoder, SlotRegistry } from "@/server/live/member-encoder";
import { log } from "@/server/core/log";
import type { BookingsSource } from "@/server/bookings/views/booking-feed";
import type { TickConsumer } from "@/server/tick/tick-view";

type LiveNamespace = Namespace<LiveClientToServer, LiveServerToClient>;
type LiveSocket = Socket<LiveClientToServer, LiveServerToClient>;

export interface LiveEndpointOptions {
  /**
   * Who may watch: the handshake's cookies (session) or its `auth.token`
   * (display or personal token); null refuses. Without it every socket is
   * an anonymous member (tests).
   */
  authenticate?: (request: { headers: Headers; token: string | null }) => Promise<LiveViewer | null>;
  /**
   * How long a connection waits for its snapshot, so that connections that
   * come together share one build; default 25 ms. Nothing here polls:
   * readings flush when their round is in (server/live/delta-pacer.ts) or
   * its bounded wait runs out, the rules' results with the tick.
   */
  flushMs?: number;
  /**
   * The bounded wait: a change waits at most this long after a flush saw
   * it for readings still due from other hosts; default 100 ms (a long
   * burst goes out in parts, a silent host holds no one longer).
   */
  maxHoldMs?: number;
  /** A change waits at least this long; default 0. Tests hold a reading across a snapshot's flush with it. */
  minHoldMs?: number;
  /**
   * Snapshots go out at most this often; default 100 ms. Connections
   * waiting meanwhile share one (at 4,000 GPUs a snapshot is megabytes and
   * a few hundred ms of work: a reconnect storm must not pay it per flush).
   */
  snapshotMs?: number;
  /** With a source, snapshots carry the bookings and each change goes out as `fleet:bookings`. */
  bookings?: BookingsSource;
  /** The GPU states now, for snapshots (the tick's, server/tick/); absent: none. */
  gpuStates?: () => Readonly<Record<string, GpuReconciliation>>;
  /** Alerts open now, for the display scope's count; absent: displays show none. */
  openAlerts?: () => number | null;
}

export interface LiveEndpoint {
  /** Feeds each tick's changed GPU states to the viewers (server/tick/). */
  consumer: TickConsumer;
  stop(): void;
}

/** The handshake's `auth`, checked: browsers are not trusted to send the right shape. */
const handshakeSchema = z.object({
  v: z.number().int().optional(),
  token: z.string().min(1).max(200).optional(),
  scope: z.enum(["member", "display"]).optional(),
  hosts: z.array(z.string().max(253)).max(200).optional(),
  fleet: z.boolean().optional(),
});

/** A GPU UUID as a browser names it: bounded, since each watched one is a room. */
const watchedUuid = z.string().min(1).max(128);

const MEMBER_ROOM = "scope:member";
const displayRoom = (roomKey: string) => `scope:display:${roomKey}`;

/**
 * A display room's key: its view (`named`: a display whose admin lets it
 * name who runs without a booking; `plain`: every other screen) and its
 * `?hosts=` filter. Screens of one room get the same bytes.
 */
function displayRoomKey(named: boolean, filterKey: string): string {
  return `${named ? "named" : "plain"}|${filterKey}`;
}

function splitDisplayRoomKey(roomKey: string): { named: boolean; filterKey: string } {
  const bar = roomKey.indexOf("|");
  return { named: roomKey.slice(0, bar) === "named", filterKey: roomKey.slice(bar + 1) };
}

interface SocketScope {
  viewer: LiveViewer | null;
  /** The display room's key for display-scope sockets (displayRoomKey); null for the member scope. */
  display: string | null;
  /** A member-scope socket takes the whole fleet's feed from the start (the handshake's `fleet`, default true). */
  fleet: boolean;
}

function handshakeHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(", "));
  }
  return headers;
}

function scopeOf(socket: Pick<LiveSocket, "data">): SocketScope {
  return (socket.data as { liveScope: SocketScope }).liveScope;
}

/**
 * Who a `/live` socket stands for, as its handshake proved it (`authenticate`,
 * once per socket): what every other handler of the namespace reads.
 */
export function liveViewerOf(socket: Pick<LiveSocket, "data">): LiveViewer | null {
  return scopeOf(socket)?.viewer ?? null;
}

/**
 * The `/live` namespace for browsers. Each socket has a scope, a room: the
 * member scope (signed-in people: the whole fleet, its bookings, GPU
 * states) or a display scope (wall screens: the reduced view of
 * server/live/display-scope.ts, one room per `?hosts=` filter). Each
 * scope's snapshot and delta are built and encoded once per flush and sent
 * to the whole room. Snapshots go out at the next flush after a connection,
 * then the compact deltas (lib/live/live-wire.ts) of the flushes after it (that
 * flush's delta goes to the rest of the room: the snapshot holds what it
 * says): new readings as soon as their round is in (the pacer), with the rules' results (GPU
 * states) of the ticks since the last one. The feed has no clock of its own: it sends on the
 * tick, on readings and on connections, and sets one timer only for a deadline (a round's
 * bounded wait, the snapshots' pace). Every socket also joins its principal's rooms
 * (live-revocation.ts). Returns a stop function.
 */
export function attachLiveEndpoint(namespace: LiveNamespace, fleet: FleetState, options: LiveEndpointOptions = {}): LiveEndpoint {
  const { authenticate, flushMs = 25, maxHoldMs = 100, minHoldMs = 0, snapshotMs = 100, bookings } = options;
  const gpuStates = (): Readonly<Record<string, GpuReconciliation>> => options.gpuStates?.() ?? {};
  const pacer = new DeltaPacer({ maxHoldMs, minHoldMs });
  const slots = new SlotRegistry();
  const members = new MemberEncoder(slots, memberSummaryOf);
  const displaySources = {
    fleet: () => fleet.current(),
    gpuStates,
    bookings: () => bookings?.current() ?? [],
    openAlerts: () => options.openAlerts?.() ?? null,
    // Read at each snapshot: the demo can end while the server runs.
    get simulated() {
      return fleet.simulated;
    },
  };
  // Two reduced views: the plain one, and one that names who runs without a booking for the
  // displays whose admin turned that on. Each is built once per flush, and only while a screen watches it.
  const displayScopes = {
    plain: new DisplayScope(displaySources, slots),
    named: new DisplayScope(displaySources, slots, { namesUnbookedRunner: true }),
  };
  const gpus = new GpuScope(
    {
      gpu: (uuid) => fleet.gpu(uuid),
      history: (uuid) => fleet.history(uuid),
      gpuState: (uuid) => gpuStates()[uuid] ?? null,
      bookings: () => bookings?.current() ?? [],
      get simulated() {
        return fleet.simulated;
      },
    },
    slots,
  );

  // The feed's one timer, for the next deadline only (see `send`); readings and the tick flush without it.
  let wakeTimer: ReturnType<typeof setTimeout> | null = null;
  let wakeAtMs = Number.POSITIVE_INFINITY;
  const wakeAt = (atMs: number) => {
    if (stopped) return;
    if (wakeTimer !== null && wakeAtMs <= atMs) return;
    if (wakeTimer !== null) clearTimeout(wakeTimer);
    wakeAtMs = atMs;
    wakeTimer = setTimeout(() => {
      wakeTimer = null;
      wakeAtMs = Number.POSITIVE_INFINITY;
      if (!stopped) send();
    }, Math.max(0, atMs - Date.now()));
    wakeTimer.unref();
  };
  // A round's first reading and the last one it waits for flush now, not at a poll: after the
  // I/O of this turn of the event loop, so that readings that came together go together.
  let flushQueued = false;
  let stopped = false;
  const queueFlush = () => {
    if (flushQueued || stopped) return;
    flushQueued = true;
    setImmediate(() => {
      flushQueued = false;
      if (!stopped) send();
    });
  };
  /** A connection waits a little for others, to share their snapshot's build. */
  const snapshotSoon = () => wakeAt(Date.now() + flushMs);

  namespace.use((socket, next) => {
    const parsed = handshakeSchema.safeParse(socket.handshake.auth ?? {});
    if (!parsed.success) return next(new Error("bad handshake"));
    const auth = parsed.data;
    if (auth.v !== LIVE_FORMAT_VERSION) {
      // A page of another version would misread the deltas; it reloads on this answer (components/live/live-socket.ts).
      return next(Object.assign(new Error(LIVE_FORMAT_ERROR), { data: { version: LIVE_FORMAT_VERSION } }));
    }
    const decide = (viewer: LiveViewer | null) => {
      const named = viewer?.kind === "display" && viewer.namesUnbookedRunner === true;
      const display = viewer?.kind === "display" || auth.scope === "display" ? displayRoomKey(named, displayFilterKey(auth.hosts)) : null;
      (socket.data as { liveScope: SocketScope }).liveScope = { viewer, display, fleet: auth.fleet !== false };
      next();
    };
    if (!authenticate) return decide(null);
    authenticate({ headers: handshakeHeaders(socket.handshake.headers), token: auth.token ?? null })
      .then((viewer) => (viewer ? decide(viewer) : next(new Error("unauthorized"))))
      .catch((error: unknown) => {
        log.warn(`could not authenticate a /live connection: ${error instanceof Error ? error.message : String(error)}`);
        next(new Error("unauthorized"));
      });
  });

  // Connections waiting for their snapshot, by scope. They get it at the
  // next flush, one snapshot per scope built and encoded once for all of
  // them: at 4,000 GPUs that is megabytes and a second of work, which 50
  // viewers connecting together each paid in turn.
  const awaitingMember = new Set<string>();
  const awaitingDisplay = new Map<string, Set<string>>();
  /** Display filters with screens connected here, and the hosts each showed at the last flush. */
  const displayFilters = new Map<string, { sockets: Set<string>; hostIds: string }>();

  namespace.on("connection", (socket) => {
    const { viewer, display, fleet: followsFleet } = scopeOf(socket);
    const rooms = viewer ? principalRoomsOf(viewer) : [];
    if (display === null) {
      void socket.join(followsFleet ? [MEMBER_ROOM, ...rooms] : rooms);
      if (followsFleet) {
        awaitingMember.add(socket.id);
        snapshotSoon();
      }
    } else {
      void socket.join([displayRoom(display), ...rooms]);
      const filter = displayFilters.get(display) ?? { sockets: new Set<string>(), hostIds: "" };
      filter.sockets.add(socket.id);
      displayFilters.set(display, filter);
      const waiting = awaitingDisplay.get(display) ?? new Set<string>();
      waiting.add(socket.id);
      awaitingDisplay.set(display, waiting);
      snapshotSoon();
    }
    socket.on("disconnect", () => {
      awaitingMember.delete(socket.id);
      gpus.forget(socket.id);
      if (display === null) return;
      awaitingDisplay.get(display)?.delete(socket.id);
      const filter = displayFilters.get(display);
      filter?.sockets.delete(socket.id);
      if (filter?.sockets.size === 0) displayFilters.delete(display);
    });
    // One GPU's scope (the GPU page): its snapshot at the next flush, then its deltas. Not for wall screens.
    socket.on("gpu:watch", (uuid, reply) => {
      const parsed = watchedUuid.safeParse(uuid);
      const ok = display === null && parsed.success && gpus.watch(socket.id, parsed.data);
      if (ok && parsed.success) {
        void socket.join(gpuRoom(parsed.data));
        snapshotSoon();
      }
      if (typeof reply === "function") reply({ ok });
    });
    if (display !== null) return;
    // The member scope's whole-fleet feed, taken and left while connected (a tab going from the fleet to a GPU and back).
    socket.on("fleet:follow", () => {
      if (socket.rooms.has(MEMBER_ROOM)) return;
      void socket.join(MEMBER_ROOM);
      awaitingMember.add(socket.id);
      snapshotSoon();
    });
    socket.on("fleet:unfollow", () => {
      awaitingMember.delete(socket.id);
      void socket.leave(MEMBER_ROOM);
    });
    socket.on("gpu:unwatch", (uuid) => {
      const parsed = watchedUuid.safeParse(uuid);
      if (!parsed.success) return;
      gpus.unwatch(socket.id, parsed.data);
      void socket.leave(gpuRoom(parsed.data));
    });
  });

  // `.local`: with several instances (Redis adapter) every instance has the
  // whole fleet and its own booking feed, and tells only its own viewers;
  // a broadcast through the adapter would reach each viewer once per instance.
  let displaysDirty = false;
  const stopBookings = bookings?.subscribe((list) => {
    namespace.local.to(MEMBER_ROOM).emit("fleet:bookings", { serverTime: new Date().toISOString(), bookings: list });
    gpus.bookingsChanged();
    displaysDirty = true;
    queueFlush();
  });

  /** Sends the waiting member sockets their snapshot; returns their ids. */
  const sendMemberSnapshots = (): string[] => {
    if (awaitingMember.size === 0) return [];
    const snapshot = options.gpuStates ? { ...fleet.snapshot(), gpuStates: options.gpuStates() } : fleet.snapshot();
    const full = bookings ? { ...snapshot, bookings: bookings.current() } : snapshot;
    const socketIds = [...awaitingMember];
    namespace.local.to(socketIds).emit("fleet:snapshot", members.snapshot(full));
    awaitingMember.clear();
    return socketIds;
  };

  const sendDisplays = (changed: boolean) => {
    const waiting = [...awaitingDisplay.values()].some((set) => set.size > 0);
    if (displayFilters.size === 0 || (!changed && !waiting)) return;
    const now = Date.now();
    const keys = [...displayFilters.keys()].map((key) => ({ key, ...splitDisplayRoomKey(key) }));
    if (keys.some((key) => !key.named)) displayScopes.plain.step(now);
    if (keys.some((key) => key.named)) displayScopes.named.step(now);
    for (const { key, named, filterKey } of keys) {
      const filter = displayFilters.get(key);
      if (!filter) continue;
      const displays = named ? displayScopes.named : displayScopes.plain;
      const hostIds = displays.hostIdsFor(filterKey).join(",");
      const sockets = awaitingDisplay.get(key);
      // A screen whose hosts changed (one appeared, one was renamed) starts over from a snapshot.
      if (hostIds !== filter.hostIds) {
        filter.hostIds = hostIds;
        namespace.local.to(displayRoom(key)).emit("display:snapshot", displays.snapshot(filterKey));
      } else {
        if (sockets && sockets.size > 0) namespace.local.to([...sockets]).emit("display:snapshot", displays.snapshot(filterKey));
        // Even in a flush with no drained delta: `step` has taken the fleet as it is now, so what it
        // found changed (readings the pacer still holds) would never reach this room's other screens.
        const delta = displays.delta(filterKey, now);
        if (delta) namespace.local.to(displayRoom(key)).except([...(sockets ?? [])]).emit("display:delta", delta);
      }
      sockets?.clear();
    }
  };

  // What the last tick's rules found, held until the next delta goes out with the readings.
  let pendingExtra: Partial<FleetDelta> | null = null;
  let lastSnapshotsAt = Number.NEGATIVE_INFINITY;
  const send = () => {
    sendNow();
    // What still waits, for the one timer: snapshots kept back by their pace, a round's bounded wait.
    if (awaitingMember.size > 0) wakeAt(lastSnapshotsAt + snapshotMs);
    const roundDue = pacer.wakeAt();
    if (roundDue !== null) wakeAt(roundDue);
  };
  const sendNow = () => {
    const snapshotted = Date.now() - lastSnapshotsAt >= snapshotMs ? sendMemberSnapshots() : [];
    if (snapshotted.length > 0) lastSnapshotsAt = Date.now();
    // A GPU page waiting for its snapshot counts too: its room's encoder is primed by it.
    const snapshotsSent = snapshotted.length > 0 || gpus.waiting;
    // Every delta is a message to every viewer: a burst of readings goes as one, at its end
    // (the pacer). Right after a snapshot the delta goes at once: the encoder's memory of
    // what was sent must not lag behind what the snapshot showed, or a value that changed
    // back would never be sent.
    const now = Date.now();
    const pending = fleet.pendingChanges() + (pendingExtra ? 1 : 0);
    const due = pacer.due(pending, now);
    // With nothing for the pacer to wait on, what a tick changed for displays (the alert
    // count, bookings that start or end by the clock) goes at once.
    const displaysOnly = pending === 0 && displaysDirty;
    if (!snapshotsSent && !due && !displaysOnly) return sendDisplays(false);
    let delta = fleet.drainDelta();
    if (pendingExtra) delta = { serverTime: new Date().toISOString(), hosts: [], gpus: [], points: {}, removedHostIds: [], ...delta, ...pendingExtra };
    pendingExtra = null;
    const changed = delta !== null || displaysDirty;
    displaysDirty = false;
    if (delta) {
      pacer.sent();
      // Encoded even when no one else is in the room: the encoder must remember what it says.
      const wire = members.encode(delta);
      // Not to the sockets that just got their snapshot (built from the same state, it holds what
      // this delta says), nor to those still waiting for one (a page drops deltas before its snapshot).
      namespace.local.to(MEMBER_ROOM).except([...snapshotted, ...awaitingMember]).emit("fleet:delta", wire);
    }
    gpus.flush(delta, {
      snapshot: (socketIds, snapshot) => namespace.local.to(socketIds).emit("gpu:snapshot", snapshot),
      // Not to the sockets that just got their snapshot: it holds what this delta says (as for displays).
      delta: (room, gpuDelta, except) => namespace.local.to(room).except(except).emit("gpu:delta", gpuDelta),
    });
    sendDisplays(changed);
  };
  // The tick's consumer, after the rules: what they changed goes out with the next delta.
  const consumer: TickConsumer = {
    name: "live deltas",
    runs: "everywhere",
    consume(view) {
      let changed = false;
      for (const _uuid in view.changed) {
        changed = true;
        break;
      }
      if (changed) pendingExtra = { ...pendingExtra, gpuStates: { ...pendingExtra?.gpuStates, ...view.changed } };
      // The open-alert count and bookings that start or end by the clock change no reading.
      displaysDirty = true;
      send();
    },
  };
  const stopReadings = fleet.onReading((hostId, sampledAt) => {
    if (pacer.arrived(hostId, sampledAt, Date.now())) queueFlush();
  });
  // A host that connected, went offline or away changes no reading: it goes out now, not at the next tick.
  const stopHostChanges = fleet.onHostChange(queueFlush);
  return {
    consumer,
    stop() {
      if (wakeTimer !== null) clearTimeout(wakeTimer);
      wakeTimer = null;
      stopped = true;
      stopReadings();
      stopHostChanges();
      stopBookings?.();
    },
  };
}
