import { describeLink, linkBetween, linkScore, type Topology } from "@/server/hosts/topology";

/**
 * Which N GPUs of one host to give to "N GPUs, any": pure, so the choice and
 * its explanation are tested on recorded topologies. The caller decides
 * which GPUs are eligible at all (free for the whole window, healthy); this
 * orders the eligible ones.
 */

export interface GpuCandidate {
  index: number;
  /** Someone's processes run on it now (live data), even if it is not booked. */
  busy: boolean;
  /** Free memory now in MiB; null when the GPU does not report it. */
  memoryFreeMiB: number | null;
  /** Hours booked over a recent period, to spread wear; 0 when unknown. */
  recentBookedHours?: number;
}

export interface RankInput {
  hostName: string;
  count: number;
  candidates: GpuCandidate[];
  /** The host's `nvidia-smi topo -m`, parsed; null when unknown. */
  topology: Topology | null;
  minFreeMemoryMiB?: number;
}

export interface RankedChoice {
  /** Ascending nvidia-smi indices. */
  gpus: number[];
  /** "2 and 3 on node-b: idle, NVLink-connected (NV4)". */
  explanation: string;
  /** How good the set is, to compare choices on different hosts (`betterChoice`). */
  score: SetScore;
}

// Beyond this many combinations the choice goes greedy (e.g. 4 of 64 GPUs).
const MAX_COMBINATIONS = 20_000;

export interface SetScore {
  busy: number;
  /** The weakest link inside the set: a job is as fast as its slowest pair. */
  weakestLink: number;
  freeMemory: number;
  wear: number;
}

function better(a: SetScore, b: SetScore): boolean {
  if (a.busy !== b.busy) return a.busy < b.busy;
  if (a.weakestLink !== b.weakestLink) return a.weakestLink > b.weakestLink;
  if (a.freeMemory !== b.freeMemory) return a.freeMemory > b.freeMemory;
  return a.wear < b.wear;
}

function scoreSet(set: GpuCandidate[], topology: Topology | null): SetScore {
  let weakestLink = Number.POSITIVE_INFINITY;
  if (topology && set.length > 1) {
    for (let i = 0; i < set.length; i += 1) {
      for (let j = i + 1; j < set.length; j += 1) weakestLink = Math.min(weakestLink, linkScore(linkBetween(topology, set[i].index, set[j].index)));
    }
  } else {
    weakestLink = 0;
  }
  return {
    busy: set.filter((gpu) => gpu.busy).length,
    weakestLink,
    freeMemory: set.reduce((sum, gpu) => sum + (gpu.memoryFreeMiB ?? 0), 0),
    wear: set.reduce((sum, gpu) => sum + (gpu.recentBookedHours ?? 0), 0),
  };
}

function combinationCount(n: number, k: number): number {
  let result = 1;
  for (let i = 1; i <= k; i += 1) {
    result = (result * (n - k + i)) / i;
    if (result > MAX_COMBINATIONS) return result;
  }
  return result;
}

function* combinations<T>(items: T[], k: number, start = 0, prefix: T[] = []): Generator<T[]> {
  if (prefix.length === k) {
    yield prefix;
    return;
  }
  for (let i = start; i <= items.length - (k - prefix.length); i += 1) yield* combinations(items, k, i + 1, [...prefix, items[i]]);
}

/** One GPU's own merit, for the greedy path: idle, then free memory, then least worn, then lowest index. */
function byMerit(a: GpuCandidate, b: GpuCandidate): number {
  return Number(a.busy) - Number(b.busy) || (b.memoryFreeMiB ?? 0) - (a.memoryFreeMiB ?? 0) || (a.recentBookedHours ?? 0) - (b.recentBookedHours ?? 0) || a.index - b.index;
}

/**
 * The best `count` GPUs among the candidates, or null when fewer qualify.
 * Order of preference: idle over busy, then (topology known) the closest
 * set by its weakest link (NVLink over PCIe), then most free memory, then
 * least recently booked, then lowest indices.
 */
export function rankGpus(input: RankInput): RankedChoice | null {
  const eligible = input.candidates
    .filter((gpu) => input.minFreeMemoryMiB === undefined || (gpu.memoryFreeMiB !== null && gpu.memoryFreeMiB >= input.minFreeMemoryMiB))
    .sort(byMerit);
  if (input.count < 1 || eligible.length < input.count) return null;

  let chosen = eligible.slice(0, input.count);
  if (input.topology && input.count > 1 && combinationCount(eligible.length, input.count) <= MAX_COMBINATIONS) {
    let best = scoreSet(chosen, input.topology);
    for (const set of combinations(eligible, input.count)) {
      const score = scoreSet(set, input.topology);
      if (better(score, best)) {
        best = score;
        chosen = set;
      }
    }
  }
  const gpus = chosen.map((gpu) => gpu.index).sort((a, b) => a - b);
  return { gpus, explanation: explain(input, chosen, gpus), score: scoreSet(chosen, input.topology) };
}

/** True when choice `a` (on one host) is better than `b` (on another) by the same order of preference. */
export function betterChoice(a: RankedChoice, b: RankedChoice): boolean {
  return better(a.score, b.score);
}

function listIndices(indices: number[]): string {
  return indices.length === 1 ? String(indices[0]) : `${indices.slice(0, -1).join(", ")} and ${indices[indices.length - 1]}`;
}

function explain(input: RankInput, chosen: GpuCandidate[], gpus: number[]): string {
  const reasons: string[] = [];
  const busy = chosen.filter((gpu) => gpu.busy).length;
  reasons.push(busy === 0 ? "idle" : `${busy} of them in use now`);
  if (chosen.length > 1 && input.topology) {
    let weakest = null as ReturnType<typeof linkBetween>;
    let weakestScore = Number.POSITIVE_INFINITY;
    for (let i = 0; i < chosen.length; i += 1) {
      for (let j = i + 1; j < chosen.length; j += 1) {
        const link = linkBetween(input.topology, chosen[i].index, chosen[j].index);
        if (linkScore(link) < weakestScore) {
          weakestScore = linkScore(link);
          weakest = link;
        }
      }
    }
    reasons.push(describeLink(weakest));
  }
  const free = chosen.map((gpu) => gpu.memoryFreeMiB).filter((mib): mib is number => mib !== null);
  if (free.length === chosen.length) reasons.push(`${Math.round(Math.min(...free) / 1024)} GiB free or more`);
  return `${listIndices(gpus)} on ${input.hostName}: ${reasons.join(", ")}`;
}
