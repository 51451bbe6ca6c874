import type { XmlMigDevice, XmlProcess } from "@/host/collector/nvidia-smi/parse-xml";

/**
 * The MIG parts of `nvidia-smi -q` (the text report): per GPU, its MIG
 * devices (index, GPU and compute instance, memory) and its processes with
 * the instance they run in. The CSV queries give neither: on a GPU in MIG
 * mode `--query-compute-apps` lists every process under the parent GPU's
 * UUID, without GI/CI columns, and `--query-gpu` has one row per GPU.
 * `-q -x` holds the same facts (parse-xml.ts); both are read into one shape.
 *
 *   GPU 00000000:00:09.0
 *       MIG Device
 *           Index                         : 0
 *           GPU Instance ID               : 2
 *           Compute Instance ID           : 0
 *           Shared FB Memory Usage          ("FB Memory Usage" on older drivers)
 *               Total                     : 40448 MiB
 *               Used                      : 11091 MiB
 *       GPU UUID                          : GPU-…
 *       Processes
 *           GPU instance ID               : 2
 *           Compute instance ID           : 0
 *           Process ID                    : 21180
 *               Type                      : C
 *               Name                      : /root/tools/memhog
 *               Used GPU Memory           : 2296 MiB
 */

export interface TextGpuMig {
  /** The GPU's UUID ("GPU UUID", or "UUID" on older drivers); null when the report has none. */
  uuid: string | null;
  pciBusId: string;
  migDevices: XmlMigDevice[];
  processes: XmlProcess[];
}

const GPU_HEADER = /^GPU\s+([0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\.[0-9A-Fa-f]+)\s*$/;
const FIELD = /^(\s*)([^:]+?)\s*:\s*(.*?)\s*$/;
const SECTION = /^(\s*)(\S.*?)\s*$/;

function number(value: string): number | null {
  const match = /^(\d+(?:\.\d+)?)/.exec(value);
  return match ? Number(match[1]) : null;
}

/** Every GPU of a `-q` report with its MIG devices and processes; GPUs without MIG come with empty lists. */
export function parseQueryTextMig(text: string): TextGpuMig[] {
  const gpus: TextGpuMig[] = [];
  let gpu: TextGpuMig | null = null;
  // The chain of section names above the current line, by indentation.
  let sections: { indent: number; name: string }[] = [];
  let device: XmlMigDevice | null = null;
  let process: XmlProcess | null = null;
  // A process block starts with its instance ids, before its pid.
  let pendingGi: number | null = null;
  let pendingCi: number | null = null;

  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim() === "") continue;
    const header = GPU_HEADER.exec(raw);
    if (header) {
      gpu = { uuid: null, pciBusId: header[1]!, migDevices: [], processes: [] };
      gpus.push(gpu);
      sections = [];
      device = null;
      process = null;
      continue;
    }
    if (!gpu) continue;
    const field = FIELD.exec(raw);
    const indent = (field?.[1] ?? SECTION.exec(raw)?.[1] ?? "").length;
    sections = sections.filter((section) => section.indent < indent);
    if (!field) {
      const name = SECTION.exec(raw)?.[2] ?? "";
      sections.push({ indent, name });
      if (indent === 4 && name === "MIG Device") {
        device = { index: null, gpuInstanceId: null, computeInstanceId: null, memoryTotalMiB: null, memoryUsedMiB: null };
        gpu.migDevices.push(device);
      } else if (indent === 4) {
        device = null;
      }
      continue;
    }
    const key = field[2]!;
    const value = field[3]!;
    const top = sections[0]?.name;
    const inner = sections[sections.length - 1]?.name;
    if (indent === 4) {
      if (key === "GPU UUID" || key === "UUID") gpu.uuid = value;
      if (top !== "Processes") device = null;
      continue;
    }
    if (top === "MIG Device" && device) {
      if (indent === 8 && key === "Index") device.index = number(value);
      else if (indent === 8 && key === "GPU Instance ID") device.gpuInstanceId = number(value);
      else if (indent === 8 && key === "Compute Instance ID") device.computeInstanceId = number(value);
      else if (indent === 12 && (inner === "Shared FB Memory Usage" || inner === "FB Memory Usage")) {
        if (key === "Total") device.memoryTotalMiB = number(value);
        else if (key === "Used") device.memoryUsedMiB = number(value);
      }
    } else if (top === "Processes") {
      if (indent === 8 && key === "GPU instance ID") pendingGi = value === "N/A" ? null : number(value);
      else if (indent === 8 && key === "Compute instance ID") pendingCi = value === "N/A" ? null : number(value);
      else if (indent === 8 && key === "Process ID") {
        const pid = number(value);
        process = pid === null ? null : { pid, name: "", usedMemoryMiB: null, type: null, gpuInstanceId: pendingGi, computeInstanceId: pendingCi };
        if (process) gpu.processes.push(process);
        pendingGi = null;
        pendingCi = null;
      } else if (indent === 12 && process) {
        if (key === "Type") process.type = value;
        else if (key === "Name") process.name = value;
        else if (key === "Used GPU Memory") process.usedMemoryMiB = number(value);
      }
    }
  }
  return gpus;
}
