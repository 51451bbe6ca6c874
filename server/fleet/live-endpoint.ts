import type { Namespace } from "socket.io";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live";
import type { FleetState } from "@/server/fleet/fleet-state";

type LiveNamespace = Namespace<LiveClientToServer, LiveServerToClient>;

/**
 * The `/live` namespace for browsers: a full snapshot on every connection,
 * then one coalesced delta per tick for everyone. Returns a stop function.
 */
export function attachLiveEndpoint(namespace: LiveNamespace, fleet: FleetState, tickMs = 1000): () => void {
  namespace.on("connection", (socket) => {
    socket.emit("fleet:snapshot", fleet.snapshot());
    socket.on("gpu:history", (uuid, reply) => {
      if (typeof reply !== "function") return;
      reply(typeof uuid === "string" && uuid.length <= 128 ? fleet.history(uuid) : null);
    });
  });

  const timer = setInterval(() => {
    fleet.checkOffline();
    const delta = fleet.drainDelta();
    if (delta) namespace.emit("fleet:delta", delta);
  }, tickMs);
  timer.unref();
  return () => clearInterval(timer);
}
