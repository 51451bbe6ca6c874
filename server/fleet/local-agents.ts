import os from "node:os";
import { createAgentRunner, type AgentRunner, type AgentTransport } from "@/host/agent/agent-runner";
import { createCollector, type Collector } from "@/host/collector/collector";
import { createNvidiaSmiSource, findNvidiaSmi } from "@/host/collector/nvidia-smi/nvidia-smi-source";
import { createSimulatedSourceFrom, simulatedFleet } from "@/host/collector/simulated/simulated-source";
import type { FleetState } from "@/server/fleet/fleet-state";
import type { Ingest } from "@/server/fleet/ingest";
import { ensureLocalHost, saveHostTopology, type RegisteredHost } from "@/server/hosts/host-registry";
import { log } from "@/server/core/log";

export type LocalAgentMode = "auto" | "nvidia-smi" | "simulated" | "off";

export interface LocalAgentsOptions {
  mode: LocalAgentMode;
  nvidiaSmiPath?: string;
  intervalMs: number;
  seed: number;
  gpuCount?: number;
  /** The simulated fleet as it was at this instant, going on from there (GPUDESK_SIM_TIME). */
  simTime?: string;
  fleet: FleetState;
  ingest: Ingest;
}

/** What the embedded server runs when nobody configured anything: the real GPUs here, or the simulated fleet. */
export function resolveLocalAgentMode(mode: LocalAgentMode, nvidiaSmiPath?: string): "nvidia-smi" | "simulated" | "off" {
  if (mode !== "auto") return mode;
  return nvidiaSmiPath ?? findNvidiaSmi() ? "nvidia-smi" : "simulated";
}

function localTransport(host: RegisteredHost, ingest: Ingest): AgentTransport {
  return {
    connected: true,
    onConnect: () => {},
    send: (batch) => ingest.ingestBatch(host, batch.snapshots, batch.dropped),
    close: async () => {},
  };
}

/**
 * Starts the in-process agents of the embedded server. They hand their
 * readings straight to the ingest path, so they need no token, but they go
 * through the same validation as a remote agent.
 */
export async function startLocalAgents(options: LocalAgentsOptions): Promise<{ stop: () => Promise<void> }> {
  const mode = resolveLocalAgentMode(options.mode, options.nvidiaSmiPath);
  const agents: { runner: AgentRunner; collector: Collector }[] = [];

  async function start(hostName: string, simulated: boolean, collector: Collector): Promise<void> {
    const host = await ensureLocalHost(hostName, simulated);
    await saveHostTopology(host.id, await collector.readTopology());
    options.fleet.connectHost(host.id, host.name, host.simulated);
    const runner = createAgentRunner({
      read: collector.read,
      onSourceTick: collector.onTick,
      transport: localTransport(host, options.ingest),
      intervalMs: options.intervalMs,
      log: (message) => log.info(`local agent ${hostName}: ${message}`),
    });
    runner.start();
    agents.push({ runner, collector });
  }

  if (mode === "nvidia-smi") {
    const path = options.nvidiaSmiPath ?? findNvidiaSmi();
    if (!path) throw new Error("GPUDESK_LOCAL_AGENT=nvidia-smi but no nvidia-smi was found on PATH");
    const hostName = os.hostname();
    const source = await createNvidiaSmiSource({ path, hostName, intervalMs: options.intervalMs });
    await start(hostName, false, createCollector({ source }));
    log.info(`reading the GPUs of this machine with ${path}`);
  } else if (mode === "simulated") {
    const specs = simulatedFleet({ seed: options.seed, gpuCount: options.gpuCount });
    for (const spec of specs) {
      const source = createSimulatedSourceFrom(spec, options.seed, options.simTime);
      await start(spec.hostName, true, createCollector({ source }));
    }
    log.info(`no nvidia-smi here: running the simulated fleet (${specs.length} hosts, seed ${options.seed})`);
  }

  return {
    async stop() {
      await Promise.all(agents.map(async ({ runner, collector }) => {
        await runner.stop();
        await collector.close();
      }));
    },
  };
}
