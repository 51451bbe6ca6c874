import type { Namespace, Socket } from "socket.io";
import type { AgentClientToServer, AgentServerToClient } from "@/lib/domain/agent-protocol";
import { enforcementReportSchema, type EnforcementReport, type TerminateCommand } from "@/lib/domain/enforcement-protocol";
import { UnrequestedReportError } from "@/server/enforcement/unrequested-report";
import type { RegisteredHost } from "@/server/hosts/host-registry";
import { periodicJob, type JobTimers } from "@/server/core/jobs";
import { log } from "@/server/core/log";

interface ChannelSocketData {
  host?: RegisteredHost;
  /** The agent said in its hello that it was started with --allow-enforcement. */
  enforcement?: boolean;
}

type AgentNamespace = Namespace<AgentClientToServer, AgentServerToClient, Record<string, never>, ChannelSocketData>;
type AgentSocket = Socket<AgentClientToServer, AgentServerToClient, Record<string, never>, ChannelSocketData>;

export interface EnforcementChannel {
  /** An agent of this host is connected and allows enforcement. */
  capable(hostId: string): boolean;
  /** Sends a terminate request to one such agent; false when there is none. */
  send(hostId: string, command: TerminateCommand): boolean;
}

/** Every agent that allows enforcement, on every instance: what the leader asks the cluster about. */
const ENFORCING_ROOM = "enforcement";
const enforcingHostRoom = (hostId: string) => `enforcement:${hostId}`;
/** How often the leader asks the other instances which of their agents allow enforcement. */
const CLUSTER_REFRESH_MS = 5000;

export interface EnforcementChannelOptions {
  /**
   * Several instances share the namespace through the Redis adapter: agents
   * connected to other instances count too, and requests reach them there.
   */
  clusterWide?: boolean;
  /** How often to ask the other instances (default 5 s). */
  refreshMs?: number;
  timers?: JobTimers;
}

/**
 * The enforcement side of `/agent`, next to the samples endpoint (which
 * authenticates the agent and answers its hello): it notes which agents
 * allow enforcement, sends them terminate requests and takes their reports.
 */
export function attachEnforcementChannel(
  namespace: AgentNamespace,
  onReport: (host: RegisteredHost, report: EnforcementReport) => Promise<void>,
  options: EnforcementChannelOptions = {},
): EnforcementChannel & { stop: () => Promise<void> } {
  namespace.on("connection", (socket: AgentSocket) => {
    socket.on("agent:hello", (hello) => {
      // The samples endpoint validates and answers the hello; only the flag matters here.
      socket.data.enforcement = typeof hello === "object" && hello !== null && (hello as { enforcement?: unknown }).enforcement === true;
      const hostId = socket.data.host?.id;
      if (socket.data.enforcement && hostId) void socket.join([ENFORCING_ROOM, enforcingHostRoom(hostId)]);
    });
    socket.on("agent:enforcement", (raw, reply) => {
      const host = socket.data.host;
      const parsed = enforcementReportSchema.safeParse(raw);
      if (!host || !parsed.success) {
        log.warn(`rejected an enforcement report from ${host?.name ?? "an unknown agent"}`);
        if (typeof reply === "function") reply({ ok: false });
        return;
      }
      onReport(host, parsed.data)
        .then(() => (typeof reply === "function" ? reply({ ok: true }) : undefined))
        .catch((error: unknown) => {
          // A report that answers no request was refused (and logged) on purpose.
          if (!(error instanceof UnrequestedReportError)) {
            log.error(`could not record an enforcement report from ${host.name}: ${error instanceof Error ? error.message : String(error)}`);
          }
          if (typeof reply === "function") reply({ ok: false });
        });
    });
  });

  function agentsOf(hostId: string): AgentSocket[] {
    return [...namespace.sockets.values()].filter((socket) => socket.data.host?.id === hostId && socket.data.enforcement === true);
  }

  // The hosts whose agents on other instances allow enforcement, as last asked (the rule loop is synchronous).
  let elsewhere = new Set<string>();
  const stopAsking = options.clusterWide
    ? periodicJob({
        name: "enforcing agents of the other instances",
        everyMs: options.refreshMs ?? CLUSTER_REFRESH_MS,
        timers: options.timers,
        run: async () => {
          const sockets = await namespace.in(ENFORCING_ROOM).fetchSockets();
          elsewhere = new Set(sockets.flatMap((socket) => (socket.data.host?.id ? [socket.data.host.id] : [])));
        },
      }).start()
    : null;

  return {
    capable: (hostId) => agentsOf(hostId).length > 0 || elsewhere.has(hostId),
    send(hostId, command) {
      const [agent] = agentsOf(hostId);
      if (agent) {
        agent.emit("agent:terminate", command);
        return true;
      }
      if (!elsewhere.has(hostId)) return false;
      // Through the adapter to the instance that holds the agent; the agent's report comes back to that instance.
      namespace.to(enforcingHostRoom(hostId)).emit("agent:terminate", command);
      return true;
    },
    stop: async () => {
      await stopAsking?.();
    },
  };
}
