import type { FleetDelta, GpuPoint, LiveGpu } from "@/lib/live";
import type { GpuSample } from "@/lib/snapshot";

/** The history point of one reading: what the detail page's charts and the sparklines plot. */
export function pointOfSample(sample: GpuSample, t: number): GpuPoint {
  return {
    t,
    util: sample.utilizationGpuPct,
    memUsedMiB: sample.memoryUsedMiB,
    powerW: sample.powerDrawW,
    tempC: sample.temperatureC,
  };
}

/**
 * The new history points a delta brings for one GPU, oldest first. The
 * server leaves out `points` when the only new point is the GPU's own latest
 * reading (the usual case, one reading a second), so that one is made from
 * the delta's GPU entry here; `points` comes only with more (a replayed
 * buffer, a late flush). Empty when the delta has nothing for the GPU.
 */
export function deltaPointsOf(delta: FleetDelta, uuid: string, gpu?: LiveGpu): GpuPoint[] {
  const sent = delta.points[uuid];
  if (sent) return sent;
  const entry = gpu ?? delta.gpus.find((candidate) => candidate.uuid === uuid);
  if (!entry) return [];
  const t = Date.parse(entry.sampledAt);
  return Number.isFinite(t) ? [pointOfSample(entry, t)] : [];
}
