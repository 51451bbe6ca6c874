import {
  applyBookings,
  applyDeltaWire,
  applySnapshotWire,
  initialLiveFleetState,
  withStatus,
  type LiveFleetState,
} from "@/lib/live/live-fleet-state";
import type { BookingsUpdate, FleetDelta, FleetSnapshot, GpuPoint, LiveGpu } from "@/lib/live/live";
import type { FleetDeltaWire, FleetSnapshotWire } from "@/lib/live/live-wire";
import { getLiveSocket, retainLiveSocket, setLiveSocketFollowsFleet } from "@/components/live/live-socket";

/**
 * One fleet state per tab, fed by the one socket. Components read it through
 * `useLiveFleet()` (useSyncExternalStore) and keep the socket open by
 * retaining the store from an effect.
 *
 * Why a store and not state inside the hook: the server sends a snapshot only
 * on connect. A page mounted later on an already-open socket (client-side
 * navigation from the fleet to a GPU) would otherwise wait forever for one.
 */

let state: LiveFleetState = initialLiveFleetState;
const listeners = new Set<() => void>();
let retainCount = 0;
let stopTimer: ReturnType<typeof setTimeout> | null = null;
let detach: (() => void) | null = null;

/** Keeps the socket across a navigation, where one page unmounts just before the next mounts. */
const STOP_GRACE_MS = 5_000;

/**
 * The fleet's listeners (the page: its counts, filters and lists) redraw
 * for new readings at most this often. Deltas may come several times a
 * second (hosts sample on phases of their own, the tick's states come
 * between); a redraw of the whole page per delta would keep the main thread
 * busy. The cards whose GPU changed are not held by it: they draw at the
 * next frame (`gpuListeners`). Anything else (a snapshot, the connection)
 * redraws at once.
 */
export const READINGS_REDRAW_MS = 1000;
let lastNotifyAt = 0;
let notifyTimer: ReturnType<typeof setTimeout> | null = null;

/**
 * Listeners of one GPU each (a card of the fleet view): told only when their
 * GPU's entry or sparkline changed, at the next animation frame after the
 * delta (deltas of one frame together), so that React draws the cards a
 * delta changed and no others, each GPU about once a second whatever the
 * number of deltas. Holding them for the page's redraw made a new value
 * wait up to a second more whenever a delta of another phase had just
 * redrawn the page (docs/benchmark.md, "Issue 42: change → viewer").
 */
const gpuListeners = new Map<string, Set<() => void>>();
/** GPUs whose readings changed since their cards were last told; null: every GPU (a snapshot, a host change). */
let changedGpus: Set<string> | null = new Set();
let cardsFrame: (() => void) | null = null;

/** `draw` at the next animation frame (a tab in the background draws when it is shown); answers how to cancel. */
function nextFrame(draw: () => void): () => void {
  if (typeof requestAnimationFrame === "function") {
    const frame = requestAnimationFrame(draw);
    return () => cancelAnimationFrame(frame);
  }
  const timer = setTimeout(draw, 0);
  return () => clearTimeout(timer);
}

function notifyCards() {
  cardsFrame?.();
  cardsFrame = null;
  const changed = changedGpus;
  changedGpus = new Set();
  if (changed === null) {
    for (const held of gpuListeners.values()) for (const listener of held) listener();
    return;
  }
  for (const uuid of changed) for (const listener of gpuListeners.get(uuid) ?? []) listener();
}

function notify() {
  if (notifyTimer) clearTimeout(notifyTimer);
  notifyTimer = null;
  lastNotifyAt = Date.now();
  for (const listener of listeners) listener();
  notifyCards();
}

function setState(next: LiveFleetState, readingsOnly = false) {
  if (next === state) return;
  // The records are shared by successive states (lib/live/live-fleet-state.ts): a new pair means GPUs may have come or gone.
  if (next.gpus !== state.gpus || next.sparklines !== state.sparklines) changedGpus = null;
  state = next;
  if (!readingsOnly) return notify();
  cardsFrame ??= nextFrame(notifyCards);
  if (notifyTimer) return;
  const wait = READINGS_REDRAW_MS - (Date.now() - lastNotifyAt);
  if (wait <= 0) notify();
  else notifyTimer = setTimeout(notify, wait);
}

export function getFleetState(): LiveFleetState {
  return state;
}

export function getServerFleetState(): LiveFleetState {
  return initialLiveFleetState;
}

export function subscribeFleet(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** One GPU's latest entry and sparkline, as the store holds them (undefined before its GPU is known). */
export interface GpuReadings {
  gpu: LiveGpu | undefined;
  sparkline: GpuPoint[] | undefined;
}

export function getGpuReadings(uuid: string): GpuReadings {
  return { gpu: state.gpus[uuid], sparkline: state.sparklines[uuid] };
}

/**
 * Hears one GPU: called, at most once per redraw, when its entry or its
 * sparkline changed (or when every GPU may have: a snapshot). Read them with getGpuReadings.
 */
export function subscribeGpu(uuid: string, listener: () => void): () => void {
  let held = gpuListeners.get(uuid);
  if (!held) gpuListeners.set(uuid, (held = new Set()));
  held.add(listener);
  return () => {
    held.delete(listener);
    if (held.size === 0 && gpuListeners.get(uuid) === held) gpuListeners.delete(uuid);
  };
}

/** A snapshot or an expanded delta, as the store took it in (for pages that want the messages, not the state). */
export type FleetMessage = { kind: "snapshot"; snapshot: FleetSnapshot } | { kind: "delta"; delta: FleetDelta };
const messageListeners = new Set<(message: FleetMessage) => void>();

/**
 * Hears every snapshot and every delta, expanded from the wire once for
 * all listeners (the GPU page's charts and states). It opens nothing: the
 * page's live fleet keeps the socket.
 */
export function subscribeFleetMessages(listener: (message: FleetMessage) => void): () => void {
  messageListeners.add(listener);
  return () => {
    messageListeners.delete(listener);
  };
}

function tell(message: FleetMessage) {
  for (const listener of messageListeners) listener(message);
}

/**
 * What waits for the first screen (afterFirstScreen): run at the live fleet's first snapshot, or
 * after this long at most (a refused or slow socket must not keep a page's other reads back).
 */
const FIRST_SCREEN_MAX_WAIT_MS = 2_000;
const firstScreenWaiters = new Set<() => void>();

function firstScreenIsLive() {
  for (const run of [...firstScreenWaiters]) run();
}

/**
 * Runs `run` once this page's first screen is live: at once, unless the
 * page holds the live fleet and its first snapshot has not come yet; then
 * when it comes, at the latest after FIRST_SCREEN_MAX_WAIT_MS. For a
 * page's secondary reads (the header's badges and notices): on two cores
 * the half-dozen API requests they fired at hydration, each a session read
 * and queries, held the socket's handshake and snapshot back by 0.1–0.4 s
 * (docs/benchmark.md, "The fleet page's first screen"). Returns a cancel.
 */
export function afterFirstScreen(run: () => void): () => void {
  if (!detach || state.hasSnapshot) {
    run();
    return () => {};
  }
  const go = () => {
    cancel();
    run();
  };
  const timer = setTimeout(go, FIRST_SCREEN_MAX_WAIT_MS);
  const cancel = () => {
    clearTimeout(timer);
    firstScreenWaiters.delete(go);
  };
  firstScreenWaiters.add(go);
  return cancel;
}

/** A page that holds the live fleet keeps the early socket this long at most before its own retain takes over. */
const EARLY_HOLD_MS = 10_000;

/**
 * Opens the socket as the page's script loads, before it hydrates (called
 * at module level by the fleet view): the snapshot is then on its way
 * while React hydrates, instead of being asked for after. The page's own
 * retain (useLiveFleet) takes over when it mounts; without one the socket
 * closes after EARLY_HOLD_MS and the store's grace.
 */
export function openLiveFleetEarly(): void {
  if (typeof window === "undefined" || detach) return;
  const release = retainLiveFleet();
  setTimeout(release, EARLY_HOLD_MS);
}

function start() {
  const socket = getLiveSocket();

  const onSnapshot = (snapshot: FleetSnapshotWire) => {
    setState(applySnapshotWire(state, snapshot, Date.now()));
    tell({ kind: "snapshot", snapshot });
    firstScreenIsLive();
  };
  const onDelta = (wire: FleetDeltaWire) => {
    const applied = applyDeltaWire(state, wire, Date.now());
    if (applied.delta && changedGpus) {
      for (const gpu of applied.delta.gpus) changedGpus.add(gpu.uuid);
      for (const uuid of Object.keys(applied.delta.points)) changedGpus.add(uuid);
    }
    setState(applied.state, true);
    if (applied.delta) tell({ kind: "delta", delta: applied.delta });
  };
  const onBookings = (update: BookingsUpdate) => setState(applyBookings(state, update, Date.now()));
  // "live" only once the snapshot is in: connected but empty is still connecting.
  const onDisconnect = () => setState(withStatus(state, socket.active ? "reconnecting" : "disconnected"));
  const onConnectError = () => {
    // `active` is false when a middleware refused us; socket.io will not retry then.
    if (!socket.active) setState(withStatus(state, "disconnected"));
    else if (state.hasSnapshot) setState(withStatus(state, "reconnecting"));
  };

  socket.on("fleet:snapshot", onSnapshot);
  socket.on("fleet:delta", onDelta);
  socket.on("fleet:bookings", onBookings);
  socket.on("disconnect", onDisconnect);
  socket.on("connect_error", onConnectError);
  setLiveSocketFollowsFleet(true);
  const releaseSocket = retainLiveSocket();

  detach = () => {
    socket.off("fleet:snapshot", onSnapshot);
    socket.off("fleet:delta", onDelta);
    socket.off("fleet:bookings", onBookings);
    socket.off("disconnect", onDisconnect);
    socket.off("connect_error", onConnectError);
    // The socket may stay for another booker (the GPU page's scope): it stops taking the fleet's feed.
    setLiveSocketFollowsFleet(false);
    releaseSocket();
  };
}

function stop() {
  detach?.();
  detach = null;
  // Without a socket nothing keeps the data true; the next start begins from a fresh snapshot.
  setState(initialLiveFleetState);
}

/** Opens the socket for as long as someone retains the store; returns the release. */
export function retainLiveFleet(): () => void {
  retainCount += 1;
  if (stopTimer) {
    clearTimeout(stopTimer);
    stopTimer = null;
  }
  if (!detach) start();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    retainCount -= 1;
    if (retainCount === 0) stopTimer = setTimeout(stop, STOP_GRACE_MS);
  };
}

/** After the server refused or dropped us for good: try again on the user's request. */
export function reconnectLiveFleet() {
  const socket = getLiveSocket();
  if (!socket.connected) {
    setState(withStatus(state, state.hasSnapshot ? "reconnecting" : "connecting"));
    socket.connect();
  }
}
