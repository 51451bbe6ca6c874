import { io, type Socket } from "socket.io-client";
import { LIVE_NAMESPACE, type LiveClientToServer, type LiveServerToClient } from "@/lib/live";

export type LiveSocket = Socket<LiveServerToClient, LiveClientToServer>;

let socket: LiveSocket | null = null;
let displayToken: string | null = null;

/**
 * The tab's one socket to `/live`, created on first use and never during
 * server rendering. It starts unconnected: `live-fleet-store.ts` decides
 * when to connect, so that a page that never shows live data opens nothing.
 */
export function getLiveSocket(): LiveSocket {
  if (typeof window === "undefined") {
    throw new Error("getLiveSocket() is browser-only; call it from an effect");
  }
  // Same origin: the custom server hosts Next and socket.io on one port.
  // `auth` is read on every (re)connect, so a token set later still counts.
  socket ??= io(LIVE_NAMESPACE, {
    autoConnect: false,
    auth: (send) => send(displayToken ? { token: displayToken } : {}),
  });
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
