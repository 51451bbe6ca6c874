import type { SimulatedSlot } from "./slots";
import { hexOf } from "./hash";

/**
 * A GPU of a simulated host split into MIG devices. The facts are those of
 * the real H100 recording (shared fixtures, `nvidia-h100-mig__590.48.01`:
 * `nvidia-smi -L` and `-q`): the profiles, their GPU instance ids, the
 * memory each slice reports, and what an empty slice already holds.
 */

export interface SimulatedMigSlice {
  /** The MIG device index within its GPU (`-L`'s "Device N"). */
  deviceIndex: number;
  /** As `-L` prints it: "3g.40gb". */
  profile: string;
  gpuInstanceId: number;
  computeInstanceId: number;
  /** `-q`'s "FB Memory Usage → Total" of the MIG device. */
  memoryTotalMiB: number;
  /** What the device reports used with nothing on it (the recording's idle reading). */
  idleUsedMiB: number;
  /** Compute slices of the GPU's seven: the share of its SMs, so of its power. */
  computeSlices: number;
  uuid: string;
  /** What runs on the slice; its `gpus` is `[0]`: the slice is the workload's only GPU. */
  slot: SimulatedSlot;
}

type SliceFacts = Omit<SimulatedMigSlice, "deviceIndex" | "uuid" | "slot">;

/** 3g.40gb + 2g.20gb + 1g.10gb + 1g.10gb on an H100 80GB, in `-L` order, as recorded. */
export const H100_MIXED_SLICES: readonly SliceFacts[] = [
  { profile: "3g.40gb", gpuInstanceId: 2, computeInstanceId: 0, memoryTotalMiB: 40448, idleUsedMiB: 26, computeSlices: 3 },
  { profile: "2g.20gb", gpuInstanceId: 3, computeInstanceId: 0, memoryTotalMiB: 20096, idleUsedMiB: 17, computeSlices: 2 },
  { profile: "1g.10gb", gpuInstanceId: 9, computeInstanceId: 0, memoryTotalMiB: 9984, idleUsedMiB: 9, computeSlices: 1 },
  { profile: "1g.10gb", gpuInstanceId: 10, computeInstanceId: 0, memoryTotalMiB: 9984, idleUsedMiB: 9, computeSlices: 1 },
];

/** The slices of GPU `index` of `host`, one workload each (`slots` in `-L` order). */
export function migSlices(
  seed: number | string,
  host: string,
  index: number,
  layout: readonly SliceFacts[],
  slots: readonly SimulatedSlot[],
): SimulatedMigSlice[] {
  if (slots.length !== layout.length) throw new RangeError(`${layout.length} MIG slices need ${layout.length} slots, got ${slots.length}`);
  return layout.map((facts, deviceIndex) => ({ ...facts, deviceIndex, uuid: migUuid(seed, host, index, deviceIndex), slot: slots[deviceIndex]! }));
}

/** `MIG-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, as `nvidia-smi -L` prints it on current drivers. */
function migUuid(seed: number | string, host: string, index: number, deviceIndex: number): string {
  const hex = hexOf(32, seed, host, index, deviceIndex, "mig-uuid");
  return `MIG-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
