import type { Namespace } from "socket.io";
import type { Role } from "@/server/access/principal";
import { log } from "@/server/core/log";

/**
 * Who watches on a `/live` socket, as the handshake proved it: a person
 * (through a session cookie or a personal token) or a wall display.
 */
export type LiveViewer =
  | { kind: "user"; userId: string; role: Role; sessionId: string | null; tokenId?: string | null }
  | { kind: "display"; displayId: string; namesUnbookedRunner?: boolean };

/** What can lose its right to watch: a person (disabled, role changed), one session (signed out), a personal or display token (revoked). */
export type LivePrincipal = { kind: "user" | "session" | "token" | "display"; id: string };

/** The socket.io room of a principal's open sockets on `/live`. */
export function principalRoom({ kind, id }: LivePrincipal): string {
  return `principal:${kind}:${id}`;
}

/** The rooms a viewer's sockets join at connection, one per thing that can end its right to watch. */
export function principalRoomsOf(viewer: LiveViewer): string[] {
  if (viewer.kind === "display") return [principalRoom({ kind: "display", id: viewer.displayId })];
  const rooms = [principalRoom({ kind: "user", id: viewer.userId })];
  if (viewer.sessionId) rooms.push(principalRoom({ kind: "session", id: viewer.sessionId }));
  if (viewer.tokenId) rooms.push(principalRoom({ kind: "token", id: viewer.tokenId }));
  return rooms;
}

// The custom server owns the namespace; API routes run in Next's bundles,
// which load their own copies of modules: the one namespace is shared
// through globalThis (as server/runtime/runtime.ts shares the fleet).
const shared = globalThis as unknown as { __gpudeskLiveNamespace?: Namespace };

export function setLiveNamespace(namespace: Namespace | undefined): void {
  shared.__gpudeskLiveNamespace = namespace;
}

/**
 * Closes every `/live` socket of a principal at once, on every instance
 * (through the Redis adapter where there is one). Browsers then connect
 * again, once: a principal that still may watch (a role change) gets the
 * scope it has now, one that may not is refused. A process without a
 * server (the admin CLI) has nothing to close: those sockets keep their
 * feed until they reconnect.
 */
export function disconnectLivePrincipal(principal: LivePrincipal): void {
  const namespace = shared.__gpudeskLiveNamespace;
  if (!namespace) return;
  try {
    namespace.in(principalRoom(principal)).disconnectSockets(true);
  } catch (error) {
    log.warn(`could not close the live sockets of ${principal.kind} ${principal.id}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
