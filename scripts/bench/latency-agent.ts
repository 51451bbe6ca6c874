/**
 * The change → viewer bench's real host agent (scripts/bench/latency.ts):
 * the pieces `gpudesk agent --nvidia-smi PATH` puts together (the
 * long-lived nvidia-smi source, the collector, the agent loop on the
 * source's ticks, the socket transport), reading scripts/fake-nvidia-smi.mjs,
 * with a time stamp where each reading is read, sent and acknowledged. The
 * fake's FAKE_NVIDIA_SMI_* variables come in the config: its children
 * inherit this process's environment.
 *
 * Protocol with the bench over IPC:
 *   ← config                 → { type: "connected" }
 *   ← { type: "report" }     → { type: "report", readings: AgentReadingTimes[] }
 *   ← { type: "stop" }
 */
import { createAgentRunner } from "@/host/agent/agent-runner";
import { createSocketTransport } from "@/host/agent/socket-transport";
import { createCollector } from "@/host/collector/collector";
import { createNvidiaSmiSource } from "@/host/collector/nvidia-smi/nvidia-smi-source";
import type { Snapshot } from "@/lib/domain/snapshot";

export interface LatencyAgentConfig {
  serverUrl: string;
  token: string;
  hostName: string;
  intervalMs: number;
  nvidiaSmi: string;
  env: Record<string, string>;
}

/** One reading's way through the agent, epoch ms; keyed by its sampledAt (the newest GPU line's arrival). */
export interface AgentReadingTimes {
  sampledAt: number;
  readStartAt: number;
  readEndAt: number;
  sendAt: number | null;
  ackAt: number | null;
}

const KEPT_READINGS = 600;

async function run(config: LatencyAgentConfig): Promise<void> {
  Object.assign(process.env, config.env);
  const readings = new Map<number, AgentReadingTimes>();
  const source = await createNvidiaSmiSource({ path: config.nvidiaSmi, hostName: config.hostName, intervalMs: config.intervalMs });
  const collector = createCollector({ source });
  const read = async (): Promise<Snapshot> => {
    const readStartAt = Date.now();
    const snapshot = await collector.read();
    const sampledAt = Date.parse(snapshot.sampledAt);
    readings.set(sampledAt, { sampledAt, readStartAt, readEndAt: Date.now(), sendAt: null, ackAt: null });
    if (readings.size > KEPT_READINGS) readings.delete(readings.keys().next().value!);
    return snapshot;
  };
  const transport = createSocketTransport({
    serverUrl: config.serverUrl,
    token: config.token,
    hello: { agentVersion: "bench", source: source.kind, intervalMs: config.intervalMs, hostName: config.hostName },
    log: (line) => process.stderr.write(`[latency agent] ${line}\n`),
  });
  const deliver = transport.send.bind(transport);
  transport.send = async (batch) => {
    const sendAt = Date.now();
    const times = batch.snapshots.map((snapshot) => readings.get(Date.parse((snapshot as Snapshot).sampledAt)));
    for (const entry of times) if (entry && entry.sendAt === null) entry.sendAt = sendAt;
    const reply = await deliver(batch);
    const ackAt = Date.now();
    for (const entry of times) if (entry && entry.ackAt === null) entry.ackAt = ackAt;
    return reply;
  };
  transport.onConnect(() => process.send?.({ type: "connected" }));
  const runner = createAgentRunner({ read, onSourceTick: collector.onTick, transport, intervalMs: config.intervalMs });
  runner.start();
  process.on("message", (message: { type?: string }) => {
    if (message?.type === "report") process.send?.({ type: "report", readings: [...readings.values()] });
    else if (message?.type === "stop") void runner.stop().finally(() => void collector.close().finally(() => process.exit(0)));
  });
}

process.once("message", (config: LatencyAgentConfig) => {
  run(config).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
});
process.on("disconnect", () => process.exit(0));
