import * as z from "zod";
import type { EnforcementReport, TerminateCommand } from "@/lib/domain/enforcement-protocol";

/** Messages between `gpudesk agent` and the server's socket.io namespace `/agent`. */

export const agentHelloSchema = z.object({
  agentVersion: z.string().max(64),
  source: z.enum(["nvidia-smi", "simulated"]),
  intervalMs: z.number().int().min(100).max(600_000),
  /** The name the agent calls its host; the server answers with the name its token belongs to. */
  hostName: z.string().max(253),
  /** Started with --allow-enforcement: the server may ask it to terminate intruders (lib/domain/enforcement-protocol.ts). */
  enforcement: z.boolean().optional(),
  /** What `nvidia-smi topo -m` printed on the host at agent start; null when unavailable. Older agents omit it. */
  topology: z.string().max(64 * 1024).nullable().optional(),
  /**
   * The host's RDMA devices from /sys/class/infiniband (lib/domain/fabric.ts); null
   * without any. Older agents omit it. Checked on its own by the server: a
   * bad fabric is dropped, the hello still counts.
   */
  fabric: z.unknown().optional(),
  /**
   * The host's network interfaces that have an address (lib/domain/fabric.ts, netInterfaceSchema),
   * for NCCL_SOCKET_IFNAME. Older agents omit it, and older servers drop it (this object is not strict).
   */
  interfaces: z.unknown().optional(),
});

/** A batch of snapshots; each is validated on its own so one bad reading does not sink the rest. */
export const agentSamplesSchema = z.object({
  snapshots: z.array(z.unknown()).min(1).max(200),
  /** Snapshots the agent dropped from its buffer since the last batch (server unreachable too long). */
  dropped: z.number().int().min(0),
});

export type AgentHello = z.infer<typeof agentHelloSchema>;
export type AgentSamples = z.infer<typeof agentSamplesSchema>;

export interface AgentHelloReply {
  ok: true;
  hostId: string;
  hostName: string;
}

export interface AgentSamplesReply {
  /** Snapshots stored (including ones older than the live state, which go to history only). */
  accepted: number;
  rejected: { index: number; error: string }[];
}

export interface AgentErrorReply {
  ok: false;
  error: string;
}

export interface AgentClientToServer {
  "agent:hello": (hello: AgentHello, reply: (answer: AgentHelloReply | AgentErrorReply) => void) => void;
  "agent:samples": (
    batch: AgentSamples,
    reply: (answer: AgentSamplesReply | AgentErrorReply) => void,
  ) => void;
  /** What the agent did about an `agent:terminate` (validated by the server). */
  "agent:enforcement": (report: EnforcementReport, reply: (answer: { ok: boolean }) => void) => void;
}

export interface AgentServerToClient {
  /** Terminate one process in conflict with a booking; an agent without --allow-enforcement refuses. */
  "agent:terminate": (command: TerminateCommand) => void;
}

/** Snapshots per message when the agent replays its buffer. */
export const AGENT_BATCH_SIZE = 100;

/** How far back an agent's buffer reaches: it keeps readings this long while the server is unreachable (host/agent/agent-runner.ts). */
export const AGENT_BUFFER_REACH_MS = 2 * 3600_000;
/** Time a reading may spend between leaving the buffer and reaching the server (a slow link, a replay of many batches). */
const DELIVERY_SLACK_MS = 10 * 60_000;
/** A reading dated further ahead of the server's clock than this comes from a host whose clock is wrong: refused. */
export const MAX_CLOCK_AHEAD_MS = 5 * 60_000;

export type ReadingTime = { ok: true; sampledAtMs: number; clamped: boolean } | { ok: false; error: string };

/**
 * When the server files a reading that arrived at `receivedAtMs`. Older than
 * any agent buffer reaches (which includes year 1 and 1970): refused. Ahead
 * of the server's clock: filed at the time it arrived, because the live state
 * keeps only readings newer than the newest it has, and one reading from the
 * future would otherwise hide every current one until its date came. Far
 * ahead (a clock off by minutes): refused.
 */
export function checkReadingTime(sampledAtMs: number, receivedAtMs: number): ReadingTime {
  if (!Number.isFinite(sampledAtMs)) return { ok: false, error: "sampledAt is not a time" };
  if (sampledAtMs < receivedAtMs - AGENT_BUFFER_REACH_MS - DELIVERY_SLACK_MS) {
    return { ok: false, error: `sampledAt ${new Date(sampledAtMs).toISOString()} is older than any agent buffer reaches: check the host's clock` };
  }
  if (sampledAtMs > receivedAtMs + MAX_CLOCK_AHEAD_MS) {
    return { ok: false, error: `sampledAt ${new Date(sampledAtMs).toISOString()} is in the future: check the host's clock` };
  }
  if (sampledAtMs > receivedAtMs) return { ok: true, sampledAtMs: receivedAtMs, clamped: true };
  return { ok: true, sampledAtMs, clamped: false };
}
