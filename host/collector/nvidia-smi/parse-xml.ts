import { XMLParser } from "fast-xml-parser";
import type { GpuSample } from "@/lib/domain/snapshot";

/**
 * Parsing of `nvidia-smi -q -x`. The source uses it once at start (the CUDA
 * version is only printed there) and as a fallback when the CSV query fails.
 *
 * The schema moved over the years (DTD v10 to v13): power is under
 * `power_readings` or `gpu_power_readings`, the draw is `power_draw` or
 * `average_power_draw`/`instant_power_draw`, the limit `power_limit` or
 * `requested_power_limit`, and volatile ECC counts are split by
 * single/double bit or by SRAM/DRAM. Every lookup therefore tolerates absence.
 */

export interface XmlProcess {
  pid: number;
  /** Empty on Windows (WDDM) and for processes in other namespaces. */
  name: string;
  usedMemoryMiB: number | null;
  /** "C", "G" or "C+G"; null in dumps that predate the element. */
  type: string | null;
  gpuInstanceId: number | null;
  computeInstanceId: number | null;
}

export interface XmlMigDevice {
  index: number | null;
  gpuInstanceId: number | null;
  computeInstanceId: number | null;
  memoryTotalMiB: number | null;
  memoryUsedMiB: number | null;
}

export interface XmlGpu {
  /** `index` is the position in the dump, which is nvidia-smi's own index order. */
  gpu: GpuSample;
  /** /dev/nvidiaN; differs from the index on some hosts and is N/A on Windows. */
  minorNumber: number | null;
  migDevices: XmlMigDevice[];
  processes: XmlProcess[];
}

export interface NvidiaSmiXmlLog {
  driverVersion: string | null;
  cudaVersion: string | null;
  /** As printed; upstream-trimmed dumps may hold fewer `<gpu>` elements. */
  attachedGpus: number | null;
  gpus: XmlGpu[];
}

type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  // Values stay text: "0000000000000" serials and "P0" must not become numbers.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
});

// Texts nvidia-smi writes where it has no value.
const NO_VALUE = new Set([
  "",
  "N/A",
  "Not Supported",
  "Unknown Error",
  "Insufficient Permissions",
  "Function Not Found",
  "Requested functionality has been deprecated",
]);

function isNode(value: unknown): value is XmlNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asNodes(value: unknown): XmlNode[] {
  if (Array.isArray(value)) return value.filter(isNode);
  return isNode(value) ? [value] : [];
}

function child(node: unknown, ...path: string[]): unknown {
  let current: unknown = node;
  for (const key of path) {
    if (!isNode(current)) return undefined;
    current = current[key];
  }
  return current;
}

function text(node: unknown, ...path: string[]): string | null {
  const value = child(node, ...path);
  const raw = typeof value === "string" ? value : isNode(value) && typeof value["#text"] === "string" ? value["#text"] : null;
  if (raw === null) return null;
  const trimmed = raw.trim();
  if (NO_VALUE.has(trimmed) || /^\[.*\]$/.test(trimmed)) return null;
  return trimmed;
}

const MEASURE = /^([-+]?\d+(?:\.\d+)?)(?:\s*[A-Za-z%/()]+)?$/;

function measure(node: unknown, ...path: string[]): number | null {
  const value = text(node, ...path);
  if (value === null) return null;
  const match = MEASURE.exec(value);
  return match ? Number(match[1]) : null;
}

function firstMeasure(node: unknown, keys: string[]): number | null {
  for (const key of keys) {
    const value = measure(node, key);
    if (value !== null) return value;
  }
  return null;
}

function volatileUncorrectedEcc(gpu: XmlNode): number | null {
  const volatile = child(gpu, "ecc_errors", "volatile");
  if (!isNode(volatile)) return null;
  // Pre-Ampere layout: single_bit / double_bit blocks, each with a total.
  if (isNode(volatile.double_bit)) return measure(volatile, "double_bit", "total");
  // Newer layouts split uncorrectable errors by memory kind; their sum is the total.
  let total: number | null = null;
  for (const key of Object.keys(volatile)) {
    if (!key.includes("uncorrectable")) continue;
    const value = measure(volatile, key);
    if (value !== null) total = (total ?? 0) + value;
  }
  return total;
}

function parseProcess(node: XmlNode): XmlProcess | null {
  const pid = measure(node, "pid");
  if (pid === null || !Number.isInteger(pid)) return null;
  return {
    pid,
    name: text(node, "process_name") ?? "",
    usedMemoryMiB: measure(node, "used_memory"),
    type: text(node, "type"),
    gpuInstanceId: measure(node, "gpu_instance_id"),
    computeInstanceId: measure(node, "compute_instance_id"),
  };
}

function parseMigDevice(node: XmlNode): XmlMigDevice {
  return {
    index: measure(node, "index"),
    gpuInstanceId: measure(node, "gpu_instance_id"),
    computeInstanceId: measure(node, "compute_instance_id"),
    memoryTotalMiB: measure(node, "fb_memory_usage", "total"),
    memoryUsedMiB: measure(node, "fb_memory_usage", "used"),
  };
}

function parseGpu(node: XmlNode, position: number): XmlGpu | null {
  const uuid = text(node, "uuid");
  if (uuid === null) return null;
  const power = child(node, "gpu_power_readings") ?? child(node, "power_readings");
  return {
    gpu: {
      index: position,
      uuid,
      name: text(node, "product_name") ?? "",
      pciBusId: text(node, "pci", "pci_bus_id") ?? text(node, "@_id"),
      memoryTotalMiB: measure(node, "fb_memory_usage", "total"),
      memoryUsedMiB: measure(node, "fb_memory_usage", "used"),
      utilizationGpuPct: measure(node, "utilization", "gpu_util"),
      utilizationMemoryPct: measure(node, "utilization", "memory_util"),
      temperatureC: measure(node, "temperature", "gpu_temp"),
      // The CSV's power.draw is the one-second average on Ampere and later, so
      // the average is preferred over the instant reading.
      powerDrawW: firstMeasure(power, ["power_draw", "average_power_draw", "instant_power_draw"]),
      // The CSV's power.limit is the requested limit ("gpu.power.requested_limit").
      powerLimitW: firstMeasure(power, ["power_limit", "requested_power_limit", "current_power_limit", "enforced_power_limit"]),
      fanSpeedPct: measure(node, "fan_speed"),
      smClockMHz: measure(node, "clocks", "sm_clock"),
      pstate: text(node, "performance_state"),
      migMode: text(node, "mig_mode", "current_mig"),
      eccErrorsUncorrected: volatileUncorrectedEcc(node),
    },
    minorNumber: measure(node, "minor_number"),
    migDevices: asNodes(child(node, "mig_devices", "mig_device")).map(parseMigDevice),
    processes: asNodes(child(node, "processes", "process_info"))
      .map(parseProcess)
      .filter((p): p is XmlProcess => p !== null),
  };
}

/** Parses a whole `nvidia-smi -q -x` document; throws when it is not one. */
export function parseNvidiaSmiXml(xml: string): NvidiaSmiXmlLog {
  let document: unknown;
  try {
    document = parser.parse(xml);
  } catch (error) {
    throw new Error(`nvidia-smi -q -x printed malformed XML: ${(error as Error).message}`);
  }
  const log = child(document, "nvidia_smi_log");
  if (!isNode(log)) throw new Error("nvidia-smi -q -x printed no <nvidia_smi_log> element");
  const gpus: XmlGpu[] = [];
  asNodes(log.gpu).forEach((node, position) => {
    const gpu = parseGpu(node, position);
    if (gpu) gpus.push(gpu);
  });
  return {
    driverVersion: text(log, "driver_version"),
    cudaVersion: text(log, "cuda_version"),
    attachedGpus: measure(log, "attached_gpus"),
    gpus,
  };
}
