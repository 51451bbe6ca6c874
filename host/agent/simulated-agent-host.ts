import { createHash } from "node:crypto";
import { simulatedFleet, type SimulatedHostSpec } from "@/host/collector/simulated/simulated-source";

/**
 * The one simulated host that `gpudesk agent --source simulated` reports:
 * the showcase layout (training with a squatter, a leak, an idle-held GPU)
 * under the agent's host name. The seed includes the name so that two
 * simulated agents never share GPU UUIDs. Tests use it to know in advance
 * what such an agent will report.
 */
export function simulatedAgentHost(hostName: string, seed: number): { spec: SimulatedHostSpec; seed: number } {
  const nameSeed = createHash("sha256").update(hostName).digest().readInt32LE(0);
  const hostSeed = (seed ^ nameSeed) | 0;
  const [spec] = simulatedFleet({ seed: hostSeed });
  return { spec: { ...spec, hostName }, seed: hostSeed };
}
