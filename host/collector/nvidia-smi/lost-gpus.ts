/**
 * A GPU that fell off the bus: nvidia-smi prints, in place of its row (or
 * before the XML), "Unable to determine the device handle for GPU
 * 0000:3B:00.0: GPU is lost. Reboot the system to recover this GPU" and exits
 * with 15, while the other GPUs still answer. See
 * host/collector/fixtures/README.md (lost-gpu/).
 */

export interface LostGpu {
  /** As nvidia-smi names it in the message, e.g. "0000:3B:00.0". */
  pciBusId: string;
  /** The rest of the message, e.g. "GPU is lost. Reboot the system to recover this GPU". */
  reason: string;
}

const LOST = /^Unable to determine the device handle for GPU\s*([0-9A-Fa-f]+:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]):\s*(.*)$/;

/** The GPU a line of nvidia-smi output reports as unreachable, or null for any other line. */
export function parseLostGpuLine(line: string): LostGpu | null {
  const match = LOST.exec(line.replace(/\r$/, "").trim());
  return match ? { pciBusId: match[1], reason: match[2].trim() } : null;
}

/** Splits an output into the unreachable GPUs it names and the rest, line endings kept. */
export function splitLostGpus(output: string): { lost: LostGpu[]; rest: string } {
  const lost: LostGpu[] = [];
  const kept: string[] = [];
  for (const line of output.split("\n")) {
    const found = parseLostGpuLine(line);
    if (found) lost.push(found);
    else kept.push(line);
  }
  return { lost, rest: kept.join("\n") };
}

/** One spelling per bus: "00000000:3B:00.0" (query-gpu, XML) and "0000:3b:00.0" (the message) are the same. */
export function normalizeBusId(busId: string): string {
  const [domain, ...rest] = busId.toLowerCase().split(":");
  return [domain.replace(/^0+(?=.)/, ""), ...rest].join(":");
}

/**
 * `-q -x` numbers GPUs by their place in the dump, which skips a lost GPU and
 * shifts every later one down. nvidia-smi's indices follow the PCI bus order
 * of all GPUs, lost ones included, so they are counted back from there (when
 * every GPU's bus is known; else the dump's order stands).
 */
export function indexAmongLost<T extends { index: number; pciBusId: string | null }>(gpus: T[], lost: LostGpu[]): T[] {
  if (lost.length === 0 || gpus.some((gpu) => gpu.pciBusId === null)) return gpus;
  const order = [...gpus.map((gpu) => gpu.pciBusId as string), ...lost.map((gone) => gone.pciBusId)].map(normalizeBusId).sort();
  return gpus.map((gpu) => ({ ...gpu, index: order.indexOf(normalizeBusId(gpu.pciBusId as string)) }));
}
