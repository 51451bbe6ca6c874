/**
 * Parsing of `nvidia-smi -L`:
 *
 *   GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-…)
 *     MIG 3g.40gb     Device  0: (UUID: MIG-…)
 *
 * The profile column is padded to a width that depends on the longest
 * profile name, so spacing is matched loosely.
 */

export interface ListedMigDevice {
  /** Profile name as printed, e.g. "1g.10gb" or "1c.3g.71gb". */
  profile: string;
  /** MIG device index within its GPU. */
  index: number;
  uuid: string;
}

export interface ListedGpu {
  index: number;
  name: string;
  uuid: string;
  migDevices: ListedMigDevice[];
}

const GPU_LINE = /^GPU\s+(\d+):\s+(.*?)\s+\(UUID:\s*([^)\s]+)\)\s*$/;
const MIG_LINE = /^\s+MIG\s+(\S+)\s+Device\s+(\d+):\s+\(UUID:\s*([^)\s]+)\)\s*$/;

/** GPUs in printed order with their MIG devices; lines that match neither form are ignored. */
export function parseNvidiaSmiList(text: string): ListedGpu[] {
  const gpus: ListedGpu[] = [];
  for (const rawLine of text.split("\n")) {
    const line = rawLine.replace(/\r$/, "");
    const gpu = GPU_LINE.exec(line);
    if (gpu) {
      gpus.push({ index: Number(gpu[1]), name: gpu[2], uuid: gpu[3], migDevices: [] });
      continue;
    }
    const mig = MIG_LINE.exec(line);
    const parent = gpus.at(-1);
    if (mig && parent) {
      parent.migDevices.push({ profile: mig[1], index: Number(mig[2]), uuid: mig[3] });
    }
  }
  return gpus;
}
