import { z } from "zod";
import type { EnforcementReport, TerminateCommand } from "@/lib/enforcement-protocol";

/** Messages between `gpudesk agent` and the server's socket.io namespace `/agent`. */

export const agentHelloSchema = z.object({
  agentVersion: z.string().max(64),
  source: z.enum(["nvidia-smi", "simulated"]),
  intervalMs: z.number().int().min(100).max(600_000),
  /** The name the agent calls its host; the server answers with the name its token belongs to. */
  hostName: z.string().max(253),
  /** Started with --allow-enforcement: the server may ask it to terminate intruders (lib/enforcement-protocol.ts). */
  enforcement: z.boolean().optional(),
  /** What `nvidia-smi topo -m` printed on the host at agent start; null when unavailable. Older agents omit it. */
  topology: z.string().max(64 * 1024).nullable().optional(),
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
