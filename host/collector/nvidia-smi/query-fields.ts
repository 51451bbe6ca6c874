/**
 * The fields the source asks nvidia-smi for, and the command lines that ask.
 * Kept in one place so the long-lived and the spawn modes cannot drift apart.
 */

export const GPU_QUERY_FIELDS = [
  "index",
  "uuid",
  "name",
  "pci.bus_id",
  "driver_version",
  "memory.total",
  "memory.used",
  "utilization.gpu",
  "utilization.memory",
  "temperature.gpu",
  "power.draw",
  "power.limit",
  "fan.speed",
  "clocks.sm",
  "pstate",
  "mig.mode.current",
  "ecc.errors.uncorrected.volatile.total",
] as const;

/**
 * Fields that not every driver knows: an unknown one makes nvidia-smi refuse
 * the whole query (`Field "…" is not a valid field to query.`, exit 2), and
 * drivers older than MIG support (R450) do not know `mig.mode.current`. Without
 * them a reading loses only the values they carry.
 */
export const OPTIONAL_GPU_FIELDS: readonly string[] = ["mig.mode.current", "ecc.errors.uncorrected.volatile.total"];

export const APP_QUERY_FIELDS = ["timestamp", "gpu_uuid", "pid", "process_name", "used_memory"] as const;

const FORMAT = "--format=csv,noheader,nounits";

/** Arguments of one query; with `loopMs`, nvidia-smi keeps printing every `loopMs` until killed. */
export function gpuQueryArgs(fields: readonly string[], loopMs?: number): string[] {
  const args = [`--query-gpu=${fields.join(",")}`, FORMAT];
  return loopMs === undefined ? args : [...args, "-lms", String(loopMs)];
}

/**
 * The looping process query keeps its header: nvidia-smi prints it once,
 * with the first tick, and since the query prints nothing on ticks without
 * processes, the header is the only sign that the first tick has happened.
 */
export function appsQueryArgs(fields: readonly string[], loopMs?: number): string[] {
  if (loopMs === undefined) return [`--query-compute-apps=${fields.join(",")}`, FORMAT];
  return [`--query-compute-apps=${fields.join(",")}`, "--format=csv,nounits", "-lms", String(loopMs)];
}
