/**
 * One agent process of the benchmark: runs many simulated GPU hosts, each
 * with the real agent loop (host/agent/agent-runner.ts) over its own
 * socket.io connection (host/agent/socket-transport.ts), as `gpudesk agent
 * --source simulated` does for one host. A process per host would swamp a
 * small machine; the server cannot tell the difference.
 *
 * Started by scripts/bench/run.ts with an IPC channel; it receives its
 * hosts as the first message and answers { type: "connected", count } as
 * connections become ready; after { type: "window", fromMs, toMs } it
 * counts the GPU readings it takes in that window, and tells the count on
 * { type: "report" }.
 */
import { createAgentRunner, type AgentRunner } from "@/host/agent/agent-runner";
import { createSocketTransport } from "@/host/agent/socket-transport";
import { createCollector } from "@/host/collector/collector";
import { createSimulatedSource, simulatedFleet } from "@/host/collector/simulated/simulated-source";
import type { Snapshot } from "@/lib/domain/snapshot";
import { LatencyHistogram } from "./stats";

/** Where an agent's part of the latency goes, sparse histograms in ms (per batch sent in the window). */
export interface AgentStages {
  /** The newest reading of a batch sampled → the batch handed to socket.io (reading the source, the runner's wait). */
  sampleToSend: [number, number][];
  /** Batch handed to socket.io → the server's acknowledgement (the wire both ways, the server's wait, validation and ingest). */
  sendToAck: [number, number][];
}

export interface AgentWorkerConfig {
  seed: number;
  gpus: number;
  intervalMs: number;
  /** The hosts this process runs, each with its token and the instance it talks to. */
  hosts: { name: string; token: string; serverUrl: string }[];
}

function send(message: unknown): void {
  process.send?.(message);
}

async function run(config: AgentWorkerConfig): Promise<void> {
  const specs = new Map(simulatedFleet({ seed: config.seed, gpuCount: config.gpus }).map((spec) => [spec.hostName, spec]));
  const runners: AgentRunner[] = [];
  let connected = 0;
  /** GPU readings taken in the window: a starved agent process may skip a second itself. */
  let window: { fromMs: number; toMs: number } | null = null;
  let taken = 0;
  let stopping = false;
  const sampleToSend = new LatencyHistogram();
  const sendToAck = new LatencyHistogram();
  for (const host of config.hosts) {
    const spec = specs.get(host.name);
    if (!spec) throw new Error(`no simulated host named ${host.name}`);
    const collector = createCollector({ source: createSimulatedSource({ spec, seed: config.seed }) });
    const read = async () => {
      const snapshot = await collector.read();
      // Filed under the nearest whole second, as the viewers' ledger does.
      const at = Math.round(Date.parse(snapshot.sampledAt) / 1000) * 1000;
      if (window && at >= window.fromMs && at < window.toMs) taken += snapshot.gpus.length;
      return snapshot;
    };
    const transport = createSocketTransport({
      serverUrl: host.serverUrl,
      token: host.token,
      hello: { agentVersion: "bench", source: "simulated", intervalMs: config.intervalMs, hostName: host.name },
      log: (line) => {
        if (!stopping && !line.startsWith("connected")) process.stderr.write(`[agent ${host.name}] ${line}\n`);
      },
    });
    const deliver = transport.send.bind(transport);
    transport.send = async (batch) => {
      const startedAt = Date.now();
      // The runner sends its own readings (typed unknown on the wire: the server validates them).
      const newest = Date.parse((batch.snapshots[batch.snapshots.length - 1] as Snapshot | undefined)?.sampledAt ?? "");
      const reply = await deliver(batch);
      if (window && newest >= window.fromMs && newest < window.toMs) {
        sampleToSend.record(startedAt - newest);
        sendToAck.record(Date.now() - startedAt);
      }
      return reply;
    };
    transport.onConnect(() => {
      connected += 1;
      send({ type: "connected", count: connected });
    });
    const runner = createAgentRunner({ read, transport, intervalMs: config.intervalMs });
    runner.start();
    runners.push(runner);
  }
  process.on("message", (message: { type?: string; fromMs?: number; toMs?: number }) => {
    if (message?.type === "window" && message.fromMs !== undefined && message.toMs !== undefined) {
      window = { fromMs: message.fromMs, toMs: message.toMs };
    } else if (message?.type === "report") {
      const stages: AgentStages = { sampleToSend: sampleToSend.toSparse(), sendToAck: sendToAck.toSparse() };
      send({ type: "report", taken, stages });
    } else if (message?.type === "stop") {
      stopping = true;
      void Promise.all(runners.map((runner) => runner.stop())).finally(() => process.exit(0));
    }
  });
}

process.once("message", (config: AgentWorkerConfig) => {
  run(config).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
});
// The runner going away (Ctrl-C, a crash) ends this process too.
process.on("disconnect", () => process.exit(0));
