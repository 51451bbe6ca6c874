import type { GpuReconciliation } from "@/lib/domain/attribution";
import { isPartitioned, siliconOf } from "@/lib/domain/gpu-availability";
import { wallSlurmHold } from "@/lib/domain/slurm";
import { gpuStateNow, unseenUseNow } from "@/lib/live/gpu-state-now";
import type { LiveBooking, LiveGpu } from "@/lib/live/live";
import { bookingsOfGpu } from "@/lib/live/live-fleet-state";
import { WALL_ANONYMOUS, wallName } from "@/lib/format/person-name";
import type { DisplayFeedGpu } from "@/lib/live/display-state";

export interface DisplayViewOptions {
  /** Name who runs on a GPU in use without a booking (a display's setting; off by default). */
  namesUnbookedRunner?: boolean;
}

/**
 * Who runs on a GPU without a booking, as the wall may name them: display
 * names only (never a login, command or purpose), the first one and how many
 * more; null when the evidence leads to nobody known.
 */
export function unbookedRunnerName(reconciliation: GpuReconciliation | undefined): string | null {
  const names: string[] = [];
  for (const process of reconciliation?.processes ?? []) {
    const name = process.runner ? wallName({ ...process.runner, unixLogin: process.login }) : null;
    if (name && !names.includes(name)) names.push(name);
  }
  if (names.length === 0) return null;
  return names.length === 1 ? names[0] : `${names[0]} +${names.length - 1}`;
}

/**
 * The display scope's per-GPU fields, taken from the full member feed, for
 * a screen that receives that feed: the same picture a display token's
 * reduced feed gives. The state is the server's (the one rule, applied with
 * its attribution); until the server's states arrive, the same rule on what
 * the page knows (lib/live/gpu-state-now.ts).
 */
export function displayGpusFromFleet(
  gpus: Record<string, LiveGpu>,
  onlineHosts: ReadonlySet<string>,
  bookings: LiveBooking[],
  states: Record<string, GpuReconciliation>,
  nowMs: number,
  options: DisplayViewOptions = {},
): Record<string, DisplayFeedGpu> {
  const out: Record<string, DisplayFeedGpu> = {};
  for (const gpu of Object.values(gpus)) {
    // A partitioned GPU is shown by its slices: each is a tile with its own state and booker.
    if (isPartitioned(gpu)) continue;
    // Times decide, not messages: a booking ends on the wall at its end even if no message arrives then.
    const { current } = bookingsOfGpu(bookings, siliconOf(gpu), nowMs);
    const state = gpuStateNow(gpu, onlineHosts.has(gpu.hostId), current, states[gpu.uuid]);
    const slurm = state === "unbooked_use" ? wallSlurmHold(states[gpu.uuid]?.slurm) : null;
    const runnerName = options.namesUnbookedRunner && state === "unbooked_use" ? unbookedRunnerName(states[gpu.uuid]) : null;
    out[gpu.uuid] = {
      uuid: gpu.uuid,
      hostId: gpu.hostId,
      index: gpu.index,
      model: gpu.name,
      state,
      utilizationPct: gpu.utilizationGpuPct,
      memoryUsedMiB: gpu.memoryUsedMiB,
      memoryTotalMiB: gpu.memoryTotalMiB,
      temperatureC: gpu.temperatureC,
      // A wall never shows a login: the booker's own display name, or no name.
      bookedByName: current ? (wallName(current.bookedBy) ?? WALL_ANONYMOUS) : null,
      bookedUntil: current?.endsAt ?? null,
      ...(gpu.mig ? { slice: { ref: `${gpu.index}:${gpu.mig.deviceIndex}`, profile: gpu.mig.profile } } : {}),
      ...(state !== "offline" && unseenUseNow(gpu, states[gpu.uuid]) ? { unseen: true as const } : {}),
      ...(runnerName ? { runnerName } : {}),
      ...(slurm ? { slurm } : {}),
    };
  }
  return out;
}
