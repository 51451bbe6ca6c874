import { isPartitioned, type UnitFacts } from "@/lib/domain/gpu-availability";

/**
 * One count per thing. A GPU split into MIG slices is one GPU of its host
 * holding N slices; the *units* (what is booked, what is free) are its
 * slices, and a whole GPU is one unit. Every surface that counts GPUs or
 * units reads this: the fleet header, the filter bar, Admin → Hosts and
 * `gpudesk status`; the wall counts one tile per unit (server/hosts/unit-count.test.ts
 * compares them all).
 */
export interface UnitCount {
  /** Physical GPUs: a split GPU counts once, its slices not at all. */
  gpus: number;
  /** Bookable units: whole GPUs and slices; a split GPU itself is none. */
  units: number;
  /** GPUs split into MIG slices, and their slices. */
  split: number;
  slices: number;
}

export function countUnits(gpus: Iterable<UnitFacts>): UnitCount {
  const count: UnitCount = { gpus: 0, units: 0, split: 0, slices: 0 };
  for (const gpu of gpus) {
    if (gpu.mig) {
      count.units += 1;
      count.slices += 1;
    } else if (isPartitioned(gpu)) {
      count.gpus += 1;
      count.split += 1;
    } else {
      count.gpus += 1;
      count.units += 1;
    }
  }
  return count;
}

/** What is counted, in the word a person expects: "GPUs" while nothing is split, else "units" (a unit is a GPU or a MIG slice). */
export function unitNoun(count: UnitCount, total = count.units): string {
  if (count.slices === 0) return total === 1 ? "GPU" : "GPUs";
  return total === 1 ? "unit" : "units";
}

/** "2 GPUs" or "2 GPUs, one split into 4 MIG slices" (Admin → Hosts, the header's note). */
export function gpusPhrase(count: UnitCount): string {
  const gpus = `${count.gpus} ${count.gpus === 1 ? "GPU" : "GPUs"}`;
  if (count.split === 0) return gpus;
  const split = count.split === 1 ? (count.gpus === 1 ? "split" : "one split") : `${count.split} split`;
  return `${gpus}, ${split} into ${count.slices} MIG ${count.slices === 1 ? "slice" : "slices"}`;
}
