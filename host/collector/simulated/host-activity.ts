import type { GpuActivity, WorkloadContext } from "./activity";
import type { SimulatedGpuSpec, SimulatedHostSpec } from "./fleet";
import type { SimulatedMigSlice } from "./mig-partition";
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

/**
 * What a MIG slice runs at time `t`: its slot's workload on a one-GPU host
 * of its own, whose board is the slice (its memory, its UUID), so that the
 * whole-GPU workloads serve slices unchanged. The pseudo host's name keys
 * the slice's schedule: each slice runs its own seeded jobs.
 */
export function sliceActivityAt(seed: number | string, spec: SimulatedHostSpec, gpu: SimulatedGpuSpec, slice: SimulatedMigSlice, t: number): GpuActivity {
  const board: SimulatedHostSpec = {
    ...spec,
    hostName: `${spec.hostName}/${gpu.index}:${slice.deviceIndex}`,
    model: { ...spec.model, memoryTotalMiB: slice.memoryTotalMiB },
    gpus: [{ index: 0, uuid: slice.uuid, pciBusId: gpu.pciBusId }],
    slots: [slice.slot],
  };
  return hostActivityAt(seed, board, t)[0]!;
}
