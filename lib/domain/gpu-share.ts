import { migProfileSize } from "@/lib/domain/gpu-availability";

/**
 * How many compute slices a GPU of this model has under MIG. From NVIDIA's
 * MIG user guide ("Supported MIG Profiles",
 * https://docs.nvidia.com/datacenter/tesla/mig-user-guide/): A100, H100,
 * H200, GH200 and B200 offer 7 compute slices (profiles 1g … 7g), A30 offers
 * 4 (1g.6gb, 2g.12gb, 4g.24gb). A model not listed is taken as 7: every
 * MIG-capable GPU except the A30 has 7.
 */
const COMPUTE_SLICES: readonly { pattern: RegExp; slices: number }[] = [{ pattern: /\bA30\b/i, slices: 4 }];
const DEFAULT_COMPUTE_SLICES = 7;

/** The compute slices of the whole GPU a unit of this model is cut from. */
export function computeSlicesOf(name: string): number {
  return COMPUTE_SLICES.find((entry) => entry.pattern.test(name))?.slices ?? DEFAULT_COMPUTE_SLICES;
}

/**
 * A unit's share of its GPU, the weight it carries in GPU-hours (quotas,
 * fair share, usage reports): 1 for a whole GPU; for a MIG slice its compute
 * slices over the GPU's, so "3g.40gb" on an H100 is 3/7 and the four slices
 * 3g + 2g + 1g + 1g of one H100 add up to one GPU. A compute instance of a
 * shared GPU instance ("1c.3g.71gb") counts its own compute slices (1/7):
 * its siblings in the same GPU instance count theirs. Clamped to (0, 1];
 * a profile of another form counts as a whole GPU (never cheaper than it
 * might be).
 */
export function gpuShareOf(unit: { migProfile: string | null; name: string }): number {
  if (unit.migProfile === null || unit.migProfile === "") return 1;
  const size = migProfileSize(unit.migProfile);
  if (!size || size.compute <= 0) return 1;
  return Math.min(1, size.compute / computeSlicesOf(unit.name));
}
