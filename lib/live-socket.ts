import { io, type Socket } from "socket.io-client";
import { LIVE_NAMESPACE, type LiveClientToServer, type LiveServerToClient } from "@/lib/live";

export type LiveSocket = Socket<LiveServerToClient, LiveClientToServer>;

let socket: LiveSocket | null = null;

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
  socket ??= io(LIVE_NAMESPACE, { autoConnect: false });
  return socket;
}
