import { hexOf, pickOf, unitOf, type HashPart } from "./hash";
import type { SimulatedSlot } from "./slots";
import { H100_MIXED_SLICES, migSlices, type SimulatedMigSlice } from "./mig-partition";
import { A100_SXM4_40GB, H100_SXM, RTX_4090, type SimulatedGpuModel } from "./models";

export type { SimulatedSlot } from "./slots";

export interface SimulatedGpuSpec {
  index: number;
  uuid: string;
  pciBusId: string;
  /**
   * Set on a GPU in MIG mode: its slices, each running its own workload.
   * Such a GPU is in no host slot; it reports what its slices run.
   */
  mig?: SimulatedMigSlice[];
}

/** One simulated host: plain data, so it can be logged, compared and stored. */
export interface SimulatedHostSpec {
  /** The host's name; a copy with another name is another host (its schedule changes). */
  hostName: string;
  driverVersion: string;
  cudaVersion: string;
  /** Hosts are homogeneous, as real GPU servers are. */
  model: SimulatedGpuModel;
  gpus: SimulatedGpuSpec[];
  /** What runs on the whole GPUs; a GPU in MIG mode has its slices' slots instead. */
  slots: SimulatedSlot[];
}

export interface SimulatedFleetOptions {
  /** Hashed as given: 42 and "42" are different fleets. */
  seed: number | string;
  /** Total GPUs for large-fleet runs; omitted, the four-host demo fleet. */
  gpuCount?: number;
}

const GPUS_PER_LARGE_HOST = 8;

/**
 * The hosts of a simulated fleet. Without `gpuCount`: `sim-h100-a` (8× H100),
 * `sim-a100-a` (4× A100), `sim-4090-a` (4× RTX 4090) and `sim-h100-mig` (one
 * H100 in MIG mode, four slices), laid out so that every case the dashboard
 * must show (training, squatter, leak, idle-but-held, notebooks, free GPUs,
 * slices) is present. With `gpuCount`: that many whole GPUs on 8-GPU hosts
 * `sim-<n>` (the last one smaller when needed), models mixed by seed.
 */
export function simulatedFleet({ seed, gpuCount }: SimulatedFleetOptions): SimulatedHostSpec[] {
  if (gpuCount === undefined) return demoFleet(seed);
  if (!Number.isInteger(gpuCount) || gpuCount < 1) {
    throw new RangeError(`gpuCount must be a positive integer, got ${gpuCount}`);
  }
  const hostCount = Math.ceil(gpuCount / GPUS_PER_LARGE_HOST);
  const width = String(hostCount).length;
  const hosts: SimulatedHostSpec[] = [];
  for (let n = 0; n < hostCount; n++) {
    const name = `sim-${String(n + 1).padStart(width, "0")}`;
    const size = Math.min(GPUS_PER_LARGE_HOST, gpuCount - n * GPUS_PER_LARGE_HOST);
    const model = pickModel(seed, name);
    // The first host carries the full showcase, so a large fleet still has a
    // squatter and a leak however the dice fall elsewhere.
    const slots = n === 0 && size === GPUS_PER_LARGE_HOST ? showcaseLayout() : randomLayout(size, seed, name);
    hosts.push(buildHost(seed, name, model, size, slots));
  }
  return hosts;
}

function demoFleet(seed: number | string): SimulatedHostSpec[] {
  return [
    buildHost(seed, "sim-h100-a", H100_SXM, 8, showcaseLayout()),
    buildHost(seed, "sim-a100-a", A100_SXM4_40GB, 4, [
      { role: "training", gpus: [0, 1], launcher: "docker", squatterGpu: null },
      { role: "notebook", gpus: [2] },
      { role: "free", gpus: [3], shortJobChance: 0.5 },
    ]),
    buildHost(seed, "sim-4090-a", RTX_4090, 4, [
      { role: "notebook", gpus: [0] },
      // Never used, so the demo always has two free, idle GPUs on one host (`gpudesk run -n 2`)…
      { role: "free", gpus: [1], shortJobChance: 0 },
      { role: "free", gpus: [2], shortJobChance: 0 },
      // …and one that the demo bookings hold idle (server/demo/demo-story.ts).
      { role: "free", gpus: [3], shortJobChance: 0 },
    ]),
    partitionedH100(seed, "sim-h100-mig"),
  ];
}

/**
 * One H100 split 3g.40gb + 2g.20gb + 1g.10gb + 1g.10gb, its slices in the
 * states the demo bookings complete (server/demo/demo-story.ts): a
 * fine-tuning job on the 3g.40gb (booked by its owner), nothing on the
 * 2g.20gb (booked, idle), a small service on one 1g.10gb (nobody booked it)
 * and nothing on the other (free).
 */
function partitionedH100(seed: number | string, name: string): SimulatedHostSpec {
  const host = buildHost(seed, name, H100_SXM, 1, []);
  const slots: SimulatedSlot[] = [
    { role: "training", gpus: [0], launcher: "docker", squatterGpu: null },
    { role: "free", gpus: [0], shortJobChance: 0 },
    { role: "leak", gpus: [0] },
    { role: "free", gpus: [0], shortJobChance: 0 },
  ];
  host.gpus[0]!.mig = migSlices(seed, name, 0, H100_MIXED_SLICES, slots);
  return host;
}

function showcaseLayout(): SimulatedSlot[] {
  return [
    { role: "training", gpus: [0, 1, 2, 3], launcher: "plain", squatterGpu: 2 },
    { role: "training", gpus: [4, 5], launcher: "slurm", squatterGpu: null },
    { role: "leak", gpus: [6] },
    { role: "idle-held", gpus: [7] },
  ];
}

/** Fills `size` GPUs with seeded blocks, training sets first-fit from index 0. */
function randomLayout(size: number, seed: number | string, host: string): SimulatedSlot[] {
  const slots: SimulatedSlot[] = [];
  const launchers = ["plain", "docker", "slurm"] as const;
  let next = 0;
  while (next < size) {
    const left = size - next;
    const key: HashPart[] = [seed, host, "layout", next];
    const roll = unitOf(...key);
    let width = 0;
    if (left === 8 && roll < 0.12) width = 8;
    else if (left >= 4 && roll < 0.4) width = 4;
    else if (left >= 2 && roll < 0.6) width = 2;
    if (width > 0) {
      const gpus = Array.from({ length: width }, (_, i) => next + i);
      const squatterGpu = width >= 4 && unitOf(...key, "squatter") < 0.3 ? next + width / 2 : null;
      slots.push({ role: "training", gpus, launcher: pickOf(launchers, ...key, "launcher"), squatterGpu });
      next += width;
      continue;
    }
    const single = unitOf(...key, "single");
    const gpus: [number] = [next];
    if (single < 0.35) slots.push({ role: "notebook", gpus });
    else if (single < 0.55) slots.push({ role: "idle-held", gpus });
    else if (single < 0.65) slots.push({ role: "leak", gpus });
    else slots.push({ role: "free", gpus, shortJobChance: 0.4 });
    next += 1;
  }
  return slots;
}

function pickModel(seed: number | string, host: string): SimulatedGpuModel {
  const roll = unitOf(seed, host, "model");
  if (roll < 0.5) return H100_SXM;
  if (roll < 0.8) return A100_SXM4_40GB;
  return RTX_4090;
}

function buildHost(
  seed: number | string,
  name: string,
  model: SimulatedGpuModel,
  size: number,
  slots: SimulatedSlot[],
): SimulatedHostSpec {
  const gpus = Array.from({ length: size }, (_, index) => ({
    index,
    uuid: gpuUuid(seed, name, index),
    pciBusId: `00000000:${model.pciBuses[index % model.pciBuses.length]}:00.0`,
  }));
  return { hostName: name, driverVersion: model.driverVersion, cudaVersion: model.cudaVersion, model, gpus, slots };
}

/** `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lower-case hex, as nvidia-smi prints. */
function gpuUuid(seed: number | string, host: string, index: number): string {
  const hex = hexOf(32, seed, host, index, "uuid");
  return `GPU-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
