import { io, type Socket } from "socket.io-client";
import type {
  AgentClientToServer,
  AgentHello,
  AgentServerToClient,
} from "@/lib/domain/agent-protocol";
import type { EnforcementReport } from "@/lib/domain/enforcement-protocol";
import { AGENT_NAMESPACE } from "@/lib/live/live";
import type { AgentTransport } from "@/host/agent/agent-runner";

const ACK_TIMEOUT_MS = 15_000;
const RETRY_MAX_MS = 30_000;

export interface SocketTransportOptions {
  serverUrl: string;
  token: string;
  hello: AgentHello;
  log: (message: string) => void;
}

/**
 * The agent's connection to a gpudesk server. Reconnects forever with
 * exponential backoff (socket.io's, and ours for refusals that socket.io
 * does not retry, such as a token the server does not know yet), and logs
 * one line per change of state, not per attempt.
 */
export function createSocketTransport(options: SocketTransportOptions): AgentTransport & {
  hostName: () => string | null;
  /** Terminate requests from the server (validated by the caller, which decides whether to act). */
  onTerminate: (listener: (command: unknown) => void) => void;
  /** Tells the server what enforcement did; rejects when the server did not take it. */
  report: (report: EnforcementReport) => Promise<void>;
} {
  const url = new URL(AGENT_NAMESPACE, options.serverUrl).toString();
  const socket: Socket<AgentServerToClient, AgentClientToServer> = io(url, {
    auth: { token: options.token },
    transports: ["websocket"],
    reconnection: true,
    reconnectionDelay: 1000,
    reconnectionDelayMax: RETRY_MAX_MS,
    randomizationFactor: 0.3,
  });
  const listeners: (() => void)[] = [];
  let state: "connecting" | "ready" | "down" = "connecting";
  let lastProblem = "";
  let ready = false;
  let registeredName: string | null = null;
  let retryDelay = 1000;
  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;

  function problem(message: string): void {
    if (message !== lastProblem || state !== "down") options.log(message);
    lastProblem = message;
    state = "down";
  }

  socket.on("connect", async () => {
    try {
      const answer = await socket.timeout(ACK_TIMEOUT_MS).emitWithAck("agent:hello", options.hello);
      if (!answer.ok) {
        // Retrying at once cannot help; a later server (or a fixed config) may accept it.
        problem(`server refused the agent: ${answer.error}; retrying later`);
        socket.disconnect();
        retryLater();
        return;
      }
      registeredName = answer.hostName;
      ready = true;
      retryDelay = 1000;
      if (state !== "ready") options.log(`connected to ${options.serverUrl} as host ${answer.hostName}`);
      state = "ready";
      lastProblem = "";
      for (const listener of listeners) listener();
    } catch {
      problem("server did not answer the agent's hello");
    }
  });

  socket.on("disconnect", (reason) => {
    ready = false;
    problem(`disconnected from ${options.serverUrl} (${reason}); buffering and reconnecting`);
    // socket.io does not reconnect by itself after the server dropped the connection (a
    // rotated or removed token, a message over the size bound): try again here, so that the
    // agent comes back, or learns from the refusal, and says so, why it may not.
    if (reason === "io server disconnect") retryLater();
  });

  socket.on("connect_error", (error) => {
    ready = false;
    problem(`cannot connect to ${options.serverUrl}: ${error.message}; buffering and retrying`);
    // A refusal by the server's middleware (bad token) is not retried by socket.io itself.
    if (!socket.active) retryLater();
  });

  function retryLater(): void {
    if (closed) return;
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => socket.connect(), retryDelay);
    retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS);
  }

  return {
    get connected() {
      return ready && socket.connected;
    },
    onConnect(listener) {
      listeners.push(listener);
    },
    async send(batch) {
      return socket.timeout(ACK_TIMEOUT_MS).emitWithAck("agent:samples", batch);
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      socket.close();
    },
    hostName: () => registeredName,
    onTerminate(listener) {
      socket.on("agent:terminate", listener);
    },
    async report(report) {
      const answer = await socket.timeout(ACK_TIMEOUT_MS).emitWithAck("agent:enforcement", report);
      if (!answer.ok) throw new Error("the server did not record the report");
    },
  };
}
