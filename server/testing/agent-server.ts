import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "socket.io";
import { AGENT_NAMESPACE } from "@/lib/live/live";
import { attachAgentEndpoint } from "@/server/fleet/agent-endpoint";
import { FleetState } from "@/server/fleet/fleet-state";
import type { Snapshot } from "@/lib/domain/snapshot";
import { createIngest } from "@/server/fleet/ingest";

export interface TestAgentServer {
  url: string;
  fleet: FleetState;
  ingest: ReturnType<typeof createIngest>;
  /** What rotating or removing a host does to its connected agents (see app/api/v1/hosts). */
  disconnectAgents: (hostId: string) => void;
  close: () => Promise<void>;
}

/**
 * A real socket.io server with the `/agent` endpoint on a port of its own,
 * the way server/index.ts wires it, without Next. Pass `port` to restart a
 * server on the same address (and `fleet` to keep its state, as a restarted
 * process would keep its database).
 */
export async function startTestAgentServer(
  options: { port?: number; fleet?: FleetState; maxMessageBytes?: number; onAccepted?: (snapshot: Snapshot) => void } = {},
): Promise<TestAgentServer> {
  const fleet = options.fleet ?? new FleetState({ offlineAfterMs: 5000, simulated: false });
  const { onAccepted } = options;
  // What server/index.ts hands to the usage history: every accepted reading.
  const ingest = createIngest(fleet, Date.now, onAccepted ? (_host, snapshot) => onAccepted(snapshot) : undefined);
  const http: HttpServer = createServer();
  const io = new Server(http, { maxHttpBufferSize: options.maxMessageBytes ?? 4_000_000 });
  const endpoint = attachAgentEndpoint(io.of(AGENT_NAMESPACE) as never, fleet, ingest);
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    fleet,
    ingest,
    disconnectAgents: endpoint.disconnectAgents,
    async close() {
      await ingest.flush();
      io.disconnectSockets(true);
      await new Promise<void>((resolve) => io.close(() => resolve()));
    },
  };
}
