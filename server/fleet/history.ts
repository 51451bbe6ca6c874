import type { GpuPoint } from "@/lib/live";

/**
 * Adds a point to a time-ordered series, keeping at most `capacity` points.
 * Live samples arrive in order (an append); replayed ones from an agent's
 * buffer may land in the middle. A point with a time already present
 * replaces it, so a replay that repeats a sample does not double it.
 */
export function insertPoint(series: GpuPoint[], point: GpuPoint, capacity: number): void {
  const last = series[series.length - 1];
  if (!last || point.t > last.t) {
    series.push(point);
  } else {
    let low = 0;
    let high = series.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (series[mid].t < point.t) low = mid + 1;
      else high = mid;
    }
    if (series[low]?.t === point.t) series[low] = point;
    else if (low === 0 && series.length >= capacity) return;
    else series.splice(low, 0, point);
  }
  if (series.length > capacity) series.splice(0, series.length - capacity);
}
