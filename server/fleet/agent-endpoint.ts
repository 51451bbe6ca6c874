import * as z from "zod";
import type { Namespace, Socket } from "socket.io";
import { hostFabricSchema, netInterfaceSchema } from "@/lib/domain/fabric";
import {
  agentHelloSchema,
  agentSamplesSchema,
  type AgentClientToServer,
  type AgentServerToClient,
} from "@/lib/domain/agent-protocol";
import type { FleetState } from "@/server/fleet/fleet-state";
import type { Ingest } from "@/server/fleet/ingest";
import { findHostByToken, saveHostFabric, saveHostTopology, type RegisteredHost } from "@/server/hosts/host-registry";
import { log } from "@/server/core/log";

const interfacesSchema = z.array(netInterfaceSchema).max(64);

interface AgentSocketData {
  host: RegisteredHost;
}

type AgentNamespace = Namespace<AgentClientToServer, AgentServerToClient, Record<string, never>, AgentSocketData>;
type AgentSocket = Socket<AgentClientToServer, AgentServerToClient, Record<string, never>, AgentSocketData>;

/**
 * The `/agent` namespace: agents authenticate with their host token in the
 * handshake; what they send is attributed to that host and nothing else.
 */
export function attachAgentEndpoint(
  namespace: AgentNamespace,
  fleet: FleetState,
  ingest: Ingest,
): { disconnectAgents: (hostId: string) => void } {
  const connections = new Map<string, number>();

  namespace.use(async (socket, next) => {
    const token: unknown = socket.handshake.auth?.token;
    if (typeof token !== "string" || token.length === 0) return next(new Error("missing host token"));
    try {
      const host = await findHostByToken(token);
      if (!host) return next(new Error("unknown host token"));
      socket.data.host = host;
      next();
    } catch (error) {
      log.error(`agent authentication failed: ${String(error)}`);
      next(new Error("server error"));
    }
  });

  namespace.on("connection", (socket: AgentSocket) => {
    const host = socket.data.host;
    connections.set(host.id, (connections.get(host.id) ?? 0) + 1);
    fleet.connectHost(host.id, host.name, host.simulated);
    log.info(`agent of ${host.name} connected from ${socket.handshake.address}`);

    socket.on("agent:hello", async (hello, reply) => {
      if (typeof reply !== "function") return rejectMessage(host, "hello without acknowledgement");
      const parsed = agentHelloSchema.safeParse(hello);
      if (!parsed.success) {
        rejectMessage(host, "invalid hello");
        return reply({ ok: false, error: `invalid hello: ${parsed.error.issues[0]?.message}` });
      }
      if (parsed.data.hostName !== host.name) {
        log.warn(`agent calls its host ${parsed.data.hostName}; its token belongs to ${host.name}, data is filed there`);
      }
      if (parsed.data.topology !== undefined) {
        // Stored before the answer, so that a booking right after the agent's start already sees the layout.
        await saveHostTopology(host.id, parsed.data.topology).catch((error: unknown) => log.error(`could not store the topology of ${host.name}: ${String(error)}`));
      }
      if (parsed.data.fabric !== undefined || parsed.data.interfaces !== undefined) {
        const fabric = parsed.data.fabric == null ? { success: true as const, data: null } : hostFabricSchema.safeParse(parsed.data.fabric);
        if (!fabric.success) log.warn(`agent of ${host.name} reported a fabric that is not one (${fabric.error.issues[0]?.message}); kept none`);
        // The interfaces with an address are kept with the fabric (NCCL_SOCKET_IFNAME names one); a bad list is dropped alone.
        const interfaces = parsed.data.interfaces === undefined ? null : interfacesSchema.safeParse(parsed.data.interfaces);
        if (interfaces && !interfaces.success) log.warn(`agent of ${host.name} reported network interfaces that are not a list of them (${interfaces.error.issues[0]?.message}); kept none`);
        const devices = fabric.success ? fabric.data : null;
        const stored = interfaces?.success ? { devices: devices?.devices ?? [], interfaces: interfaces.data } : devices && { devices: devices.devices };
        await saveHostFabric(host.id, stored).catch((error: unknown) => log.error(`could not store the fabric of ${host.name}: ${String(error)}`));
      }
      reply({ ok: true, hostId: host.id, hostName: host.name });
    });

    socket.on("agent:samples", (batch, reply) => {
      if (typeof reply !== "function") return rejectMessage(host, "samples without acknowledgement");
      const parsed = agentSamplesSchema.safeParse(batch);
      if (!parsed.success) {
        rejectMessage(host, "invalid samples message");
        return reply({ ok: false, error: `invalid samples message: ${parsed.error.issues[0]?.message}` });
      }
      ingest
        .ingestBatch(host, parsed.data.snapshots, parsed.data.dropped)
        .then(reply)
        .catch((error: unknown) => {
          log.error(`ingest from ${host.name} failed: ${String(error)}`);
          reply({ ok: false, error: "server error while storing samples" });
        });
    });

    socket.on("disconnect", (reason) => {
      const left = (connections.get(host.id) ?? 1) - 1;
      connections.set(host.id, left);
      if (left === 0) fleet.disconnectHost(host.id);
      log.info(`agent of ${host.name} disconnected (${reason})`);
    });
  });

  function rejectMessage(host: RegisteredHost, why: string): void {
    ingest.counters.rejectedMessages += 1;
    log.warn(`rejected a message from the agent of ${host.name}: ${why}`);
  }

  return {
    disconnectAgents(hostId: string) {
      for (const socket of namespace.sockets.values()) {
        if (socket.data.host?.id === hostId) socket.disconnect(true);
      }
    },
  };
}
