import type { GpuSample, ProcessInfo } from "@/lib/domain/snapshot";
import { placeProcesses, slicesOf, type MigLayout } from "@/host/collector/nvidia-smi/mig-slices";
import { usedMemoryOf, type GpuActivity } from "./activity";
import type { SimulatedGpuSpec, SimulatedHostSpec } from "./fleet";
import { hashOf } from "./hash";
import { sliceActivityAt } from "./host-activity";
import { gpuSampleAt, processInfoOf } from "./telemetry";

/**
 * A GPU in MIG mode as the agent reports it: the GPU itself (MIG "Enabled",
 * memory used the sum of its slices', utilization null, since nvidia-smi
 * reports `[N/A]` there; power and temperature follow its slices' load,
 * weighted by their compute slices), then one unit per slice. The slices
 * and the processes' placement go through the agent's own join of `-L` and
 * `-q` (host/collector/nvidia-smi/mig-slices.ts), fed with what those two
 * readings would say, so a simulated slice reads as a real one does.
 */
export function partitionedGpuAt(
  spec: SimulatedHostSpec,
  seed: number | string,
  gpu: SimulatedGpuSpec,
  t: number,
): { gpus: GpuSample[]; processes: ProcessInfo[] } {
  const slices = gpu.mig ?? [];
  const activities = slices.map((slice) => sliceActivityAt(seed, spec, gpu, slice, t));
  const compute = slices.reduce((sum, slice) => sum + slice.computeSlices, 0);
  const load = activities.reduce((sum, activity, i) => sum + activity.utilizationPct * slices[i]!.computeSlices, 0);
  const memoryLoad = activities.reduce((sum, activity, i) => sum + activity.utilizationPct * activity.memoryBusyRatio * slices[i]!.computeSlices, 0);
  const whole: GpuActivity = {
    utilizationPct: compute > 0 ? load / compute : 0,
    memoryBusyRatio: load > 0 ? memoryLoad / load : 0,
    processes: activities.flatMap((activity) => activity.processes),
  };
  const sliceUsed = activities.map((activity, i) => Math.min(slices[i]!.memoryTotalMiB, slices[i]!.idleUsedMiB + usedMemoryOf(activity)));
  const parent: GpuSample = {
    ...gpuSampleAt(spec.model, gpu, whole, [hashOf(seed, gpu.uuid)], t),
    memoryUsedMiB: sliceUsed.reduce((sum, used) => sum + used, 0),
    utilizationGpuPct: null,
    utilizationMemoryPct: null,
    migMode: "Enabled",
  };
  const layout: MigLayout = {
    gpus: [
      {
        uuid: gpu.uuid,
        listed: {
          index: gpu.index,
          name: spec.model.name,
          uuid: gpu.uuid,
          migDevices: slices.map((slice) => ({ profile: slice.profile, index: slice.deviceIndex, uuid: slice.uuid })),
        },
        migDevices: slices.map((slice, i) => ({
          index: slice.deviceIndex,
          gpuInstanceId: slice.gpuInstanceId,
          computeInstanceId: slice.computeInstanceId,
          memoryTotalMiB: slice.memoryTotalMiB,
          memoryUsedMiB: sliceUsed[i]!,
        })),
        processes: activities.flatMap((activity, i) =>
          activity.processes.map((process) => ({
            pid: process.pid,
            name: process.name,
            usedMemoryMiB: process.usedMemoryMiB,
            type: "C",
            gpuInstanceId: slices[i]!.gpuInstanceId,
            computeInstanceId: slices[i]!.computeInstanceId,
          })),
        ),
      },
    ],
  };
  const units = slicesOf(parent, layout);
  // `--query-compute-apps` lists them on the GPU; the layout moves each onto its slice.
  const processes = placeProcesses(whole.processes.map((process) => processInfoOf(gpu.uuid, process)), units, layout);
  return { gpus: [parent, ...units], processes };
}
