import type { SimulatedHostSpec } from "./fleet";

/**
 * What `nvidia-smi topo -m` prints on a simulated host: the same tab-separated
 * matrix, affinity columns and legend as the real tool, so that the agent
 * sends it and the server parses it exactly as it would a real host's.
 */
export function simulatedTopologyText(spec: SimulatedHostSpec): string {
  const count = spec.gpus.length;
  const half = Math.ceil(count / 2);
  const numaOf = (index: number) => (index < half ? 0 : 1);
  const link = (a: number, b: number): string => {
    if (a === b) return " X ";
    if (spec.model.interconnect.kind === "nvswitch") return `NV${spec.model.interconnect.nvlinks}`;
    // PCIe boards sit in pairs behind one switch; pairs share a NUMA node per half.
    if (Math.floor(a / 2) === Math.floor(b / 2)) return "PIX";
    return numaOf(a) === numaOf(b) ? "NODE" : "SYS";
  };
  const header = ["", ...spec.gpus.map((gpu) => `GPU${gpu.index}`), "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"].join("\t");
  const rows = spec.gpus.map((gpu) => {
    const numa = numaOf(gpu.index);
    const cpus = numa === 0 ? "0-31" : "32-63";
    return [`GPU${gpu.index}`, ...spec.gpus.map((other) => link(gpu.index, other.index)), cpus, String(numa), "", "N/A"].join("\t");
  });
  return [
    header,
    ...rows,
    "",
    "Legend:",
    "",
    "  X    = Self",
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)",
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node",
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)",
    "  PIX  = Connection traversing at most a single PCIe bridge",
    "  NV#  = Connection traversing a bonded set of # NVLinks",
    "",
  ].join("\n");
}
