import { peakConcurrent } from "@/server/bookings/store/occupancy";

/**
 * GPU-hours of bookings: the one computation behind the quotas (GPU-hours
 * per rolling 7 days), the queue's fair share (with decay) and the usage
 * report's per-team and per-person booked hours. Each figure these places
 * show is this function over the same rows, so a report and a refusal
 * never disagree.
 */

export interface GpuRange {
  startMs: number;
  endMs: number;
  /** GPUs' worth held over the range: 1 for a booked whole GPU, a MIG slice's share of its GPU (lib/domain/gpu-share.ts). */
  gpus: number;
}

export const HOUR_MS = 3600_000;
export const WEEK_MS = 7 * 24 * HOUR_MS;

/**
 * GPU-hours of the ranges inside [fromMs, toMs). With a half-life, each
 * instant t counts 2^(-(toMs - t) / halfLife): an hour booked a half-life
 * before `toMs` counts half.
 */
export function gpuHoursOf(ranges: readonly GpuRange[], fromMs: number, toMs: number, halfLifeMs?: number): number {
  let total = 0;
  for (const range of ranges) {
    const a = Math.max(range.startMs, fromMs);
    const b = Math.min(range.endMs, toMs);
    if (b <= a) continue;
    if (halfLifeMs === undefined) {
      total += (range.gpus * (b - a)) / HOUR_MS;
    } else {
      // ∫_a^b 2^(-(to - t)/h) dt = h / ln2 · (2^(-(to-b)/h) − 2^(-(to-a)/h))
      const k = Math.LN2 / halfLifeMs;
      total += (range.gpus * (Math.exp(-k * (toMs - b)) - Math.exp(-k * (toMs - a)))) / k / HOUR_MS;
    }
  }
  return total;
}

/**
 * The most GPU-hours any window of `windowMs` holds, over the windows that
 * share time with [touchFromMs, touchToMs): the sum is piecewise linear in
 * the window's end, so its maximum is at an end where a range starts or
 * ends inside the window's edges.
 */
export function peakWindowGpuHours(ranges: readonly GpuRange[], windowMs: number, touchFromMs: number, touchToMs: number): { hours: number; windowEndMs: number } {
  const candidates = new Set<number>([touchToMs]);
  for (const range of ranges) {
    for (const edge of [range.startMs, range.endMs]) {
      candidates.add(edge);
      candidates.add(edge + windowMs);
    }
  }
  let best = { hours: 0, windowEndMs: touchToMs };
  for (const end of candidates) {
    if (end <= touchFromMs || end - windowMs >= touchToMs) continue;
    const hours = gpuHoursOf(ranges, end - windowMs, end);
    if (hours > best.hours) best = { hours, windowEndMs: end };
  }
  return best;
}

/**
 * What the two counting limits see of an owner's ranges over [fromMs, toMs):
 * units held at once at the busiest instant (a slice is one unit), and the
 * GPU-hours of the busiest 7 days that share time with it (a slice weighs
 * its share). The booking transaction, the waitlist, the form's "N of M"
 * and the API's room all count with this.
 */
export function countHeld(ranges: readonly GpuRange[], fromMs: number, toMs: number): { atOnce: number; gpuHours7Days: number; windowEndMs: number } {
  const clipped = ranges.map((range) => ({ startMs: Math.max(range.startMs, fromMs), endMs: Math.min(range.endMs, toMs) }));
  const peak = peakWindowGpuHours(ranges, WEEK_MS, fromMs, toMs);
  return { atOnce: peakConcurrent(clipped), gpuHours7Days: peak.hours, windowEndMs: peak.windowEndMs };
}

