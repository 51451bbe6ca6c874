import type { Namespace, Socket } from "socket.io";
import type { AgentClientToServer, AgentServerToClient } from "@/lib/agent-protocol";
import { enforcementReportSchema, type EnforcementReport, type TerminateCommand } from "@/lib/enforcement-protocol";
import type { RegisteredHost } from "@/server/hosts/host-registry";
import { log } from "@/server/log";

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

/**
 * The enforcement side of `/agent`, next to the samples endpoint (which
 * authenticates the agent and answers its hello): it notes which agents
 * allow enforcement, sends them terminate requests and takes their reports.
 */
export function attachEnforcementChannel(
  namespace: AgentNamespace,
  onReport: (host: RegisteredHost, report: EnforcementReport) => Promise<void>,
): EnforcementChannel {
  namespace.on("connection", (socket: AgentSocket) => {
    socket.on("agent:hello", (hello) => {
      // The samples endpoint validates and answers the hello; only the flag matters here.
      socket.data.enforcement = typeof hello === "object" && hello !== null && (hello as { enforcement?: unknown }).enforcement === true;
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
          log.error(`could not record an enforcement report from ${host.name}: ${error instanceof Error ? error.message : String(error)}`);
          if (typeof reply === "function") reply({ ok: false });
        });
    });
  });

  function agentsOf(hostId: string): AgentSocket[] {
    return [...namespace.sockets.values()].filter((socket) => socket.data.host?.id === hostId && socket.data.enforcement === true);
  }

  return {
    capable: (hostId) => agentsOf(hostId).length > 0,
    send(hostId, command) {
      const [agent] = agentsOf(hostId);
      if (!agent) return false;
      agent.emit("agent:terminate", command);
      return true;
    },
  };
}
