import { terminateCommandSchema } from "@/lib/domain/enforcement-protocol";
import { readInfiniband } from "@/host/collector/fabric/read-infiniband";
import { readInterfaces } from "@/host/collector/fabric/read-interfaces";
import { agentOptionsSchema, type AgentOptions } from "@/host/agent/agent-options";
import { createAgentRunner } from "@/host/agent/agent-runner";
import { createEnforcer } from "@/host/agent/enforcer";
import { simulatedAgentHost } from "@/host/agent/simulated-agent-host";
import { createSocketTransport } from "@/host/agent/socket-transport";
import { createCollector } from "@/host/collector/collector";
import { createNvidiaSmiSource, findNvidiaSmi } from "@/host/collector/nvidia-smi/nvidia-smi-source";
import { createProcReader } from "@/host/collector/proc/proc-reader";
import { createSimulatedSourceFrom } from "@/host/collector/simulated/simulated-source";
import type { GpuSource } from "@/host/collector/source";
import type { Snapshot } from "@/lib/domain/snapshot";
import { log } from "@/lib/log";
import { GPUDESK_VERSION } from "@/lib/version";

class UsageError extends Error {
  override name = "UsageError";
}

function parseOptions(raw: Record<string, unknown>): AgentOptions {
  const parsed = agentOptionsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = issue?.path[0] ? `--${String(issue.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ` : "";
    throw new UsageError(`${flag}${issue?.message}`);
  }
  return parsed.data;
}

async function openSource(options: AgentOptions): Promise<GpuSource> {
  const nvidiaSmi = options.nvidiaSmi ?? findNvidiaSmi();
  const kind = options.source ?? (nvidiaSmi ? "nvidia-smi" : "simulated");
  if (kind === "nvidia-smi") {
    if (!nvidiaSmi) throw new UsageError("nvidia-smi not found on PATH: pass --nvidia-smi PATH or --source simulated");
    return createNvidiaSmiSource({ path: nvidiaSmi, hostName: options.hostName, intervalMs: options.interval });
  }
  const { spec, seed } = simulatedAgentHost(options.hostName, options.seed);
  return createSimulatedSourceFrom(spec, seed, options.simTime);
}

/** `gpudesk agent`: one reading with --once, else the push loop until a signal. */
export async function runAgentCommand(raw: Record<string, unknown>): Promise<void> {
  const options = parseOptions(raw);
  const source = await openSource(options);
  const collector = createCollector({ source, procRoot: options.procRoot });

  if (options.once) {
    try {
      const snapshot = await collector.read();
      process.stdout.write(options.json ? `${JSON.stringify(snapshot, null, 2)}\n` : formatSummary(snapshot));
    } finally {
      await collector.close();
    }
    return;
  }

  // Read once: links between GPUs do not change while the host runs.
  const topology = await collector.readTopology();
  // The fabric too: ports going up or down are seen again at the agent's next start (or reconnect's hello).
  const fabric = await readInfiniband(options.sysfsInfiniband);
  const transport = createSocketTransport({
    serverUrl: options.server!,
    token: options.token!,
    hello: {
      agentVersion: GPUDESK_VERSION,
      source: source.kind,
      intervalMs: options.interval,
      hostName: options.hostName,
      enforcement: options.allowEnforcement,
      topology,
      fabric,
      interfaces: readInterfaces(),
    },
    log: log.info,
  });
  // The agent's own latest reading: what enforcement checks a request against, whatever the server says.
  let latest: Snapshot | null = null;
  const read = async () => (latest = await collector.read());
  const enforcer = createEnforcer({
    allow: options.allowEnforcement,
    reader: createProcReader({ procRoot: options.procRoot }),
    latestReading: () => latest,
    // Three readings may be missed (a slow nvidia-smi) before the last one stops counting.
    maxReadingAgeMs: Math.max(10_000, options.interval * 3),
    minUid: options.enforceMinUid,
    report: (report) => void transport.report(report).catch(() => log.warn(`the server did not take the enforcement report for pid ${report.pid}`)),
    log: log.info,
  });
  transport.onTerminate((raw) => {
    const command = terminateCommandSchema.safeParse(raw);
    if (!command.success) return log.warn("ignored an invalid terminate request from the server");
    void enforcer.handle(command.data);
  });
  const runner = createAgentRunner({
    read,
    onSourceTick: collector.onTick,
    transport,
    intervalMs: options.interval,
    bufferCapacity: options.buffer,
    log: log.info,
  });
  log.info(
    `agent started: ${source.kind} source, every ${options.interval} ms, server ${options.server}` +
      (options.allowEnforcement ? ", enforcement allowed" : ""),
  );
  runner.start();

  await new Promise<void>((resolve) => {
    const stop = async (signal: string) => {
      log.info(`${signal}: stopping (${runner.buffer.size} readings not yet delivered)`);
      await runner.flush().catch(() => {});
      enforcer.stop();
      await runner.stop();
      await collector.close();
      resolve();
    };
    process.once("SIGINT", () => void stop("SIGINT"));
    process.once("SIGTERM", () => void stop("SIGTERM"));
  });
  process.exit(0);
}

function formatSummary(snapshot: Awaited<ReturnType<GpuSource["read"]>>): string {
  const lines = [`${snapshot.host.name}  driver ${snapshot.host.driverVersion ?? "?"}  CUDA ${snapshot.host.cudaVersion ?? "?"}`];
  for (const gpu of snapshot.gpus) {
    const processes = snapshot.processes.filter((process) => process.gpuUuid === gpu.uuid);
    lines.push(
      `  GPU ${gpu.index}  ${gpu.name}  util ${gpu.utilizationGpuPct ?? "—"}%  mem ${gpu.memoryUsedMiB ?? "—"}/${gpu.memoryTotalMiB ?? "—"} MiB  ` +
        `${processes.map((process) => `${process.user ?? "?"}:${process.pid}`).join(" ") || "no processes"}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
