import type { GpuActivity, WorkloadContext } from "./activity";
import type { SimulatedHostSpec } from "./fleet";
import { hashOf } from "./hash";
import { addIdleHeld, addLeak, addNotebook, addShortJob } from "./single-gpu-workloads";
import { addTraining } from "./training-workload";

/** What every GPU of the host runs at time `t` (ms since the epoch), by GPU index. */
export function hostActivityAt(seed: number | string, spec: SimulatedHostSpec, t: number): GpuActivity[] {
  const activity: GpuActivity[] = spec.gpus.map(() => ({ utilizationPct: 0, memoryBusyRatio: 0, processes: [] }));
  spec.slots.forEach((slot, index) => {
    // The slot's identity is hashed once: every draw below extends this one number
    // instead of rehashing the seed and host name.
    const ctx: WorkloadContext = { spec, activity, key: [hashOf(seed, spec.hostName, "slot", index)], t };
    const gpu = slot.gpus[0];
    switch (slot.role) {
      case "training":
        return addTraining(ctx, slot);
      case "notebook":
        return addNotebook(ctx, gpu);
      case "idle-held":
        return addIdleHeld(ctx, gpu);
      case "leak":
        return addLeak(ctx, gpu);
      case "free":
        return addShortJob(ctx, gpu, slot.shortJobChance);
    }
  });
  return activity;
}
