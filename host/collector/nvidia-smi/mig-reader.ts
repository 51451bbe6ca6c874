import type { GpuSample } from "@/lib/domain/snapshot";
import { canonicalGpuUuid } from "@/lib/domain/gpu-uuid";
import { isMigEnabled, type MigLayout } from "@/host/collector/nvidia-smi/mig-slices";
import { parseNvidiaSmiList } from "@/host/collector/nvidia-smi/parse-list";
import { parseQueryTextMig } from "@/host/collector/nvidia-smi/parse-query-text";
import { parseNvidiaSmiXml } from "@/host/collector/nvidia-smi/parse-xml";

export interface MigReader {
  /** The MIG layout for a reading of these GPUs and processes; null when no GPU is in MIG mode (nothing is run then). */
  layout(gpus: GpuSample[], processes: { gpuUuid: string; pid: number }[]): Promise<MigLayout | null>;
}

export interface MigReaderOptions {
  /** Runs nvidia-smi with these arguments and resolves with its stdout. */
  run: (args: string[]) => Promise<string>;
  /** How long a layout is used before it is read again; default 5 s. */
  refreshMs?: number;
  log: (line: string) => void;
  now?: () => number;
}

/**
 * Reads the MIG layout (`nvidia-smi -L` and `nvidia-smi -q`) only on hosts
 * with a GPU in MIG mode, at most every `refreshMs`, and sooner when a
 * process appears on a MIG GPU that the last layout does not place (a job
 * that just started), but never twice within a second. The report is the
 * text one, as the recordings of H100 and H200 hosts hold; `-q -x` is the
 * fallback when the text cannot be read. Slices created or destroyed show
 * at the next read: the layout, and so the inventory, follows them.
 */
export function createMigReader(options: MigReaderOptions): MigReader {
  const refreshMs = options.refreshMs ?? 5000;
  const now = options.now ?? Date.now;
  let last: { layout: MigLayout; at: number } | null = null;
  let failing = false;

  const read = async (): Promise<MigLayout> => {
    const [list, report] = await Promise.all([options.run(["-L"]), readReport()]);
    const listed = parseNvidiaSmiList(list);
    return {
      gpus: report.map((gpu) => ({
        ...gpu,
        listed: listed.find((l) => canonicalGpuUuid(l.uuid) === canonicalGpuUuid(gpu.uuid)) ?? null,
      })),
    };
  };

  const readReport = async (): Promise<Omit<MigLayout["gpus"][number], "listed">[]> => {
    try {
      const text = parseQueryTextMig(await options.run(["-q"]));
      if (text.length > 0 && text.every((gpu) => gpu.uuid !== null)) {
        return text.map((gpu) => ({ uuid: gpu.uuid!, migDevices: gpu.migDevices, processes: gpu.processes }));
      }
    } catch {
      // The XML report below says the same.
    }
    const xml = parseNvidiaSmiXml(await options.run(["-q", "-x"]));
    return xml.gpus.map((gpu) => ({ uuid: gpu.gpu.uuid, migDevices: gpu.migDevices, processes: gpu.processes }));
  };

  return {
    async layout(gpus, processes) {
      const mig = gpus.filter((gpu) => isMigEnabled(gpu.migMode));
      if (mig.length === 0) return null;
      const at = now();
      const migUuids = new Set(mig.map((gpu) => canonicalGpuUuid(gpu.uuid)));
      const placedPids = new Set(last?.layout.gpus.flatMap((gpu) => gpu.processes.map((p) => p.pid)) ?? []);
      const unplaced = processes.some((p) => migUuids.has(canonicalGpuUuid(p.gpuUuid)) && !placedPids.has(p.pid));
      const age = last === null ? Infinity : at - last.at;
      if (age >= refreshMs || (unplaced && age >= 1000)) {
        try {
          last = { layout: await read(), at };
          if (failing) options.log("the MIG layout reads again");
          failing = false;
        } catch (error) {
          if (!failing) options.log(`no MIG layout: ${(error as Error).message}; the MIG GPUs report as whole GPUs`);
          failing = true;
          // Keep the last layout (its slices stay known) but try again at the next read.
          if (last) last = { layout: last.layout, at: at - refreshMs };
        }
      }
      return last?.layout ?? null;
    },
  };
}
