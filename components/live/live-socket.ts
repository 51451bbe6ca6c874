import { io, type Socket } from "socket.io-client";
import { LIVE_NAMESPACE } from "@/lib/live/live";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live/live-events";
import { LIVE_FORMAT_ERROR, LIVE_FORMAT_VERSION, type LiveHandshake } from "@/lib/live/live-wire";

export type LiveSocket = Socket<LiveServerToClient, LiveClientToServer>;

let socket: LiveSocket | null = null;
let displayToken: string | null = null;
let displayScope: { hosts: string[] | null } | null = null;
let followsFleet = false;
let holds = 0;

/** A page reloads itself at most this often for a new live format (a server that keeps refusing must not make it spin). */
const RELOAD_GUARD_MS = 60_000;
const RELOAD_KEY = "gpudesk:live-format-reload";

/** What the handshake says: the format this page reads, the token, the scope. Read on every (re)connect. */
export function liveHandshake(): LiveHandshake {
  const handshake: LiveHandshake = { v: LIVE_FORMAT_VERSION, fleet: followsFleet };
  if (displayToken) handshake.token = displayToken;
  if (displayScope) {
    handshake.scope = "display";
    if (displayScope.hosts && displayScope.hosts.length > 0) handshake.hosts = displayScope.hosts;
  }
  return handshake;
}

function reloadForNewFormat() {
  try {
    const last = Number(window.sessionStorage.getItem(RELOAD_KEY) ?? 0);
    if (Date.now() - last < RELOAD_GUARD_MS) return;
    window.sessionStorage.setItem(RELOAD_KEY, String(Date.now()));
  } catch {
    // No storage (a locked-down kiosk): reload anyway, the server said this page is out of date.
  }
  window.location.reload();
}

/**
 * The tab's one socket to `/live`, created on first use and never during
 * server rendering. It starts unconnected: `live-fleet-store.ts` decides
 * when to connect, so that a page that never shows live data opens nothing.
 */
export function getLiveSocket(): LiveSocket {
  if (typeof window === "undefined") {
    throw new Error("getLiveSocket() is browser-only; call it from an effect");
  }
  if (socket) return socket;
  // Same origin: the custom server hosts Next and socket.io on one port.
  // `auth` is read on every (re)connect, so a token or scope set later still counts.
  const created: LiveSocket = io(LIVE_NAMESPACE, { autoConnect: false, auth: (send) => send({ ...liveHandshake() }) });
  // A server of another format refuses this page: load the page it serves now.
  created.on("connect_error", (error) => {
    if (error.message === LIVE_FORMAT_ERROR) reloadForNewFormat();
  });
  // The server closes a principal's sockets when its rights change (a role,
  // a revoked token, a signed-out session; server/access/live-revocation.ts).
  // socket.io does not retry after that by itself: try once, so that a
  // person whose role changed gets the scope they have now; the refused stay refused.
  created.on("disconnect", (reason) => {
    if (reason === "io server disconnect") created.connect();
  });
  // A handshake says whether the fleet's feed is wanted, but the answer may have changed while it travelled.
  created.on("connect", () => {
    if (!displayScope) created.emit(followsFleet ? "fleet:follow" : "fleet:unfollow");
  });
  socket = created;
  return socket;
}

/**
 * A wall display signs in with its display token instead of a session
 * cookie (the server checks `auth.token` first). Set it before the store
 * connects; null goes back to the cookie.
 */
export function setLiveSocketToken(token: string | null): void {
  displayToken = token;
}

/**
 * The display scope (what a wall screen shows, limited to these hosts) or,
 * with null, the member scope. Set it before the store connects.
 */
export function setLiveSocketDisplayScope(scope: { hosts: string[] | null } | null): void {
  displayScope = scope;
}

/**
 * Whether this tab wants the member scope's whole-fleet feed (the fleet
 * store sets it while retained). Said in the handshake of every (re)connect
 * and, while connected, by `fleet:follow` / `fleet:unfollow`: a tab that
 * only shows one GPU (the GPU page) takes that GPU's scope alone.
 */
export function setLiveSocketFollowsFleet(follows: boolean): void {
  if (followsFleet === follows) return;
  followsFleet = follows;
  const live = getLiveSocket();
  if (live.connected) live.emit(follows ? "fleet:follow" : "fleet:unfollow");
}

/**
 * Keeps the tab's socket connected while someone holds it (the fleet store,
 * the GPU page's scope, a wall display); returns the release, which closes
 * it when the last user lets go.
 */
export function retainLiveSocket(): () => void {
  const live = getLiveSocket();
  holds += 1;
  if (holds === 1) live.connect();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds -= 1;
    if (holds === 0) live.disconnect();
  };
}
