import type { GpuSample, ProcessInfo } from "@/lib/domain/snapshot";
import { usedMemoryOf, type GpuActivity, type SimulatedProcess } from "./activity";
import type { SimulatedGpuSpec } from "./fleet";
import { between, jitterOf, smoothNoise, type HashPart } from "./hash";
import type { SimulatedGpuModel } from "./models";

/**
 * Turns what runs on a GPU into what nvidia-smi would read from it. Power,
 * temperature, clocks and fan follow utilization through closed formulas with
 * no lag: a thermal model with memory would make a reading depend on the past
 * and break "same seed, same time, same value".
 */
export function gpuSampleAt(
  model: SimulatedGpuModel,
  gpu: SimulatedGpuSpec,
  activity: GpuActivity,
  key: readonly HashPart[],
  t: number,
): GpuSample {
  const hasContext = activity.processes.length > 0;
  const utilization = clamp(Math.round(activity.utilizationPct), 0, 100);
  const load = utilization / 100;
  // The driver reserves a few MiB per GPU once any context exists.
  const memoryUsed = hasContext ? Math.min(model.memoryTotalMiB, usedMemoryOf(activity) + 9) : 0;

  const floorW = model.idlePowerW + (hasContext ? model.contextPowerW : 0);
  const peakW = model.powerLimitW * 0.93;
  // Power rises a little faster than linearly with load; the noise is smaller at idle.
  const powerNoise = jitterOf(t, ...key, "power") * model.powerLimitW * (load > 0 ? 0.012 : 0.002);
  const power = clamp(floorW + (peakW - floorW) * load ** 1.25 + powerNoise, model.idlePowerW * 0.95, model.powerLimitW);

  // Boards differ by a couple of degrees by where they sit in the chassis airflow.
  const placement = between(-2, 3, ...key, "placement");
  const heat = (power - model.idlePowerW) / (model.powerLimitW - model.idlePowerW);
  const temperature = Math.round(
    model.baseTempC + placement + model.tempRiseC * heat + (smoothNoise(45_000, t, ...key, "temp") - 0.5) * 1.5,
  );

  const smClock = hasContext
    ? roundTo(15, model.maxSmClockMHz - (model.maxSmClockMHz - model.loadSmClockMHz) * load ** 2 + 15 * jitterOf(t, ...key, "clock"))
    : model.idleSmClockMHz;

  return {
    index: gpu.index,
    uuid: gpu.uuid,
    name: model.name,
    pciBusId: gpu.pciBusId,
    memoryTotalMiB: model.memoryTotalMiB,
    memoryUsedMiB: memoryUsed,
    utilizationGpuPct: utilization,
    utilizationMemoryPct: clamp(Math.round(utilization * activity.memoryBusyRatio), 0, 100),
    temperatureC: temperature,
    powerDrawW: Math.round(power * 100) / 100,
    powerLimitW: model.powerLimitW,
    fanSpeedPct: model.hasFan ? fanFor(temperature) : null,
    smClockMHz: smClock,
    pstate: hasContext ? model.computePstate : model.idlePstate,
    migMode: model.hasMig ? "Disabled" : null,
    eccErrorsUncorrected: model.hasEcc ? 0 : null,
  };
}

/** A simulated process as the agent reports it, on the GPU (or slice) with this UUID. */
export function processInfoOf(gpuUuid: string, process: SimulatedProcess): ProcessInfo {
  return {
    gpuUuid,
    pid: process.pid,
    name: process.name,
    usedMemoryMiB: process.usedMemoryMiB,
    user: process.user,
    command: process.command,
    startedAt: new Date(process.startedAt).toISOString(),
    container: process.container,
    slurmJobId: process.slurmJobId,
    // Only `gpudesk run` sets GPUDESK_RESERVATION; simulated jobs were not launched through it.
    reservationId: null,
  };
}

/** GeForce fan curve: zero-RPM while cool, then proportional to temperature. */
function fanFor(temperatureC: number): number {
  if (temperatureC < 50) return 0;
  return clamp(Math.round(30 + (temperatureC - 50) * 2.5), 30, 100);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function roundTo(step: number, value: number): number {
  return Math.round(value / step) * step;
}
