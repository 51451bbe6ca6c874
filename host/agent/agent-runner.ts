import { AGENT_BATCH_SIZE, AGENT_BUFFER_REACH_MS, type AgentSamples, type AgentSamplesReply, type AgentErrorReply } from "@/lib/domain/agent-protocol";
import type { Snapshot } from "@/lib/domain/snapshot";
import { SampleBuffer } from "@/host/agent/sample-buffer";

/** How readings leave the agent: a socket to a remote server, or a call into the embedded one. */
export interface AgentTransport {
  readonly connected: boolean;
  /** Called whenever the transport (re)connects, so the runner can replay its buffer. */
  onConnect(listener: () => void): void;
  /** Resolves with the server's reply; rejects when the batch was not delivered. */
  send(batch: AgentSamples): Promise<AgentSamplesReply | AgentErrorReply>;
  close(): Promise<void>;
}

export interface AgentRunnerOptions {
  read: () => Promise<Snapshot>;
  transport: AgentTransport;
  intervalMs: number;
  /**
   * The source's "new reading ready" (GpuSource.onTick): the agent reads then,
   * on the source's phase, rather than on whole intervals of its own clock,
   * where a change waited for nvidia-smi's tick and again for the agent's.
   * The clock stays as the backstop when the source goes quiet.
   */
  onSourceTick?: (listener: () => void) => () => void;
  /** Readings kept while the server is unreachable; default two hours at the interval (older ones are dropped whatever the count). */
  bufferCapacity?: number;
  log?: (message: string) => void;
}

/**
 * The agent's loop: read the GPUs every interval, keep the reading, send
 * what is kept. Readings leave the buffer only when the server acknowledged
 * them, so an outage or a server restart loses nothing (up to the bound).
 */
export function createAgentRunner(options: AgentRunnerOptions) {
  const log = options.log ?? (() => {});
  const capacity = options.bufferCapacity ?? Math.ceil(AGENT_BUFFER_REACH_MS / options.intervalMs);
  const buffer = new SampleBuffer<Snapshot>(capacity);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let sending = false;
  let sourceFailing = false;
  let reading = false;
  let lastReadAt = 0;
  let stopListening: (() => void) | undefined;

  async function tick(): Promise<void> {
    if (reading) return;
    reading = true;
    lastReadAt = Date.now();
    try {
      buffer.push(await options.read());
      if (sourceFailing) log("GPU source recovered");
      sourceFailing = false;
    } catch (error) {
      if (!sourceFailing) log(`cannot read GPUs: ${error instanceof Error ? error.message : String(error)}`);
      sourceFailing = true;
    } finally {
      reading = false;
    }
    // Not awaited: a server slow to acknowledge must not hold up the next
    // reading (the reading stays buffered until a send gets through).
    void flush();
  }

  /** Sends buffered readings, oldest first, one batch at a time, until empty or undeliverable. */
  async function flush(): Promise<void> {
    if (sending) return;
    sending = true;
    try {
      while (!stopped && options.transport.connected && buffer.size > 0) {
        // The server refuses readings older than the buffer's reach (lib/domain/agent-protocol.ts): they go as dropped, not as data.
        const oldest = Date.now() - AGENT_BUFFER_REACH_MS;
        buffer.dropStale((snapshot) => Date.parse(snapshot.sampledAt) < oldest);
        if (buffer.size === 0) break;
        const snapshots = buffer.peek(AGENT_BATCH_SIZE);
        const dropped = buffer.takeDropped();
        let reply: AgentSamplesReply | AgentErrorReply;
        try {
          reply = await options.transport.send({ snapshots, dropped });
        } catch {
          buffer.restoreDropped(dropped);
          return; // not delivered: kept for the next attempt
        }
        if ("ok" in reply) {
          // The server refused the whole message; resending the same bytes cannot help.
          log(`server refused a batch of ${snapshots.length} readings: ${reply.error}`);
        } else if (reply.rejected.length > 0) {
          log(`server refused ${reply.rejected.length} of ${snapshots.length} readings: ${reply.rejected[0].error}`);
        }
        buffer.remove(snapshots);
      }
    } finally {
      sending = false;
    }
  }

  function schedule(): void {
    if (stopped) return;
    // Aligned to the interval so that a slow read does not drift the sampling clock.
    const delay = options.intervalMs - (Date.now() % options.intervalMs);
    timer = setTimeout(() => {
      // With a source that says when it has a reading, the clock reads only when it has gone quiet.
      const quiet = !options.onSourceTick || Date.now() - lastReadAt > 1.5 * options.intervalMs;
      void (quiet ? tick() : Promise.resolve()).finally(schedule);
    }, delay);
  }

  options.transport.onConnect(() => void flush());

  return {
    start(): void {
      stopped = false;
      stopListening = options.onSourceTick?.(() => {
        if (!stopped) void tick();
      });
      void tick().finally(schedule);
    },
    async stop(): Promise<void> {
      stopped = true;
      stopListening?.();
      clearTimeout(timer);
      await options.transport.close();
    },
    buffer,
    flush,
  };
}

export type AgentRunner = ReturnType<typeof createAgentRunner>;
