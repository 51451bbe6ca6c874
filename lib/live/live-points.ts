import type { FleetDelta, GpuPoint, LiveGpu, SparklineColumns } from "@/lib/live/live";
import type { GpuSample } from "@/lib/domain/snapshot";

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

/** The last time parsed by `sampleTime`: a delta's readings share a few sample times, as the same strings. */
let lastParsed: { text: string; t: number } = { text: "", t: Number.NaN };

/**
 * Milliseconds of an ISO sample time. A delta's GPUs carry the same few
 * strings (one per sample time, lib/live/live-wire.ts), so the last one parsed is
 * remembered: a browser parses each time once per delta, not once per GPU.
 */
export function sampleTime(iso: string): number {
  if (iso !== lastParsed.text) lastParsed = { text: iso, t: Date.parse(iso) };
  return lastParsed.t;
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
  const t = sampleTime(entry.sampledAt);
  return Number.isFinite(t) ? [pointOfSample(entry, t)] : [];
}

/** The snapshot's compact form of a sparkline's points: times delta-encoded, utilization only. */
export function columnsOfPoints(points: GpuPoint[]): SparklineColumns {
  const t: number[] = new Array<number>(points.length);
  const util: (number | null)[] = new Array<number | null>(points.length);
  let previous = 0;
  for (let i = 0; i < points.length; i += 1) {
    t[i] = points[i].t - previous;
    util[i] = points[i].util;
    previous = points[i].t;
  }
  return { t, util };
}

/**
 * The points of a snapshot's sparkline, in the shape the deltas bring and
 * the store holds; memory, power and temperature are null (the sparklines
 * draw utilization only). Extra entries of a longer column are ignored.
 */
export function pointsOfColumns(columns: SparklineColumns): GpuPoint[] {
  const count = Math.min(columns.t.length, columns.util.length);
  const points: GpuPoint[] = new Array<GpuPoint>(count);
  let t = 0;
  for (let i = 0; i < count; i += 1) {
    t += columns.t[i];
    points[i] = { t, util: columns.util[i], memUsedMiB: null, powerW: null, tempC: null };
  }
  return points;
}
