import { applyDisplayDelta, applyDisplaySnapshot, initialDisplayFeedState, type DisplayFeedState } from "@/lib/live/display-feed";
import type { ConnectionStatus } from "@/lib/live/live-fleet-state";
import { getLiveSocket, retainLiveSocket } from "@/components/live/live-socket";
import type { DisplayDeltaWire, DisplaySnapshotWire } from "@/lib/live/live-wire";

/**
 * The wall screen's display feed, fed by the tab's one socket in the
 * display scope (the caller sets the scope and token on components/live/live-socket.ts
 * first). Components read it through useSyncExternalStore.
 */

let state: DisplayFeedState = initialDisplayFeedState;
const listeners = new Set<() => void>();
let detach: (() => void) | null = null;
let retainCount = 0;

function setState(next: DisplayFeedState) {
  if (next === state) return;
  state = next;
  for (const listener of listeners) listener();
}

function withStatus(status: ConnectionStatus) {
  if (state.status !== status) setState({ ...state, status });
}

export function getDisplayFeed(): DisplayFeedState {
  return state;
}

export function getServerDisplayFeed(): DisplayFeedState {
  return initialDisplayFeedState;
}

export function subscribeDisplayFeed(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Opens the socket while retained; returns the release (which closes it when nobody else holds it). */
export function retainDisplayFeed(): () => void {
  retainCount += 1;
  if (!detach) {
    const socket = getLiveSocket();
    const onSnapshot = (wire: DisplaySnapshotWire) => setState(applyDisplaySnapshot(state, wire, Date.now()));
    const onDelta = (wire: DisplayDeltaWire) => setState(applyDisplayDelta(state, wire, Date.now()));
    const onDisconnect = () => withStatus(socket.active ? "reconnecting" : "disconnected");
    const onConnectError = () => {
      // `active` is false when a middleware refused us; socket.io will not retry then.
      if (!socket.active) withStatus("disconnected");
      else if (state.hasSnapshot) withStatus("reconnecting");
    };
    socket.on("display:snapshot", onSnapshot);
    socket.on("display:delta", onDelta);
    socket.on("disconnect", onDisconnect);
    socket.on("connect_error", onConnectError);
    const releaseSocket = retainLiveSocket();
    detach = () => {
      socket.off("display:snapshot", onSnapshot);
      socket.off("display:delta", onDelta);
      socket.off("disconnect", onDisconnect);
      socket.off("connect_error", onConnectError);
      releaseSocket();
    };
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    retainCount -= 1;
    if (retainCount > 0) return;
    detach?.();
    detach = null;
    setState(initialDisplayFeedState);
  };
}

/** After the server refused us: try again (the wall display does it on a timer). */
export function reconnectDisplayFeed() {
  const socket = getLiveSocket();
  if (socket.connected) return;
  withStatus(state.hasSnapshot ? "reconnecting" : "connecting");
  socket.connect();
}
