import type { GpuPoint } from "@/lib/live";

/**
 * A GPU's recent history as a ring of typed columns: 15 minutes at 1 Hz is
 * 900 points per GPU, which as objects made millions of small objects at
 * 4,000 GPUs for the garbage collector to walk, and dropping the oldest
 * point shifted the whole array on every reading. Here a reading is five
 * numbers written in place (null is stored as NaN). Points stay in time
 * order: live readings append; replayed ones from an agent's buffer may
 * land in the middle; a point with a time already held replaces it, so a
 * replay that repeats a reading does not double it.
 */
export class PointRing {
  private readonly t: Float64Array;
  private readonly util: Float64Array;
  private readonly mem: Float64Array;
  private readonly power: Float64Array;
  private readonly temp: Float64Array;
  private start = 0;
  private count = 0;

  constructor(private readonly capacity: number) {
    this.t = new Float64Array(capacity);
    this.util = new Float64Array(capacity);
    this.mem = new Float64Array(capacity);
    this.power = new Float64Array(capacity);
    this.temp = new Float64Array(capacity);
  }

  get length(): number {
    return this.count;
  }

  /** Time (ms) of the newest point; -Infinity when empty. */
  lastT(): number {
    return this.count === 0 ? Number.NEGATIVE_INFINITY : this.t[this.slot(this.count - 1)];
  }

  insert(point: GpuPoint): void {
    if (this.count === 0 || point.t > this.lastT()) {
      if (this.count === this.capacity) this.dropOldest();
      this.write(this.count, point);
      this.count += 1;
      return;
    }
    let low = this.lowerBound(point.t);
    if (low < this.count && this.t[this.slot(low)] === point.t) return this.write(low, point);
    if (this.count === this.capacity) {
      // Older than everything held, with no room: it would be dropped at once.
      if (low === 0) return;
      this.dropOldest();
      low -= 1;
    }
    for (let i = this.count; i > low; i -= 1) this.copy(i - 1, i);
    this.write(low, point);
    this.count += 1;
  }

  /** The point at a position, oldest first. */
  at(index: number): GpuPoint {
    const slot = this.slot(index);
    return {
      t: this.t[slot],
      util: nullable(this.util[slot]),
      memUsedMiB: nullable(this.mem[slot]),
      powerW: nullable(this.power[slot]),
      tempC: nullable(this.temp[slot]),
    };
  }

  /** The points with a time after `t`, found from the end: usually one or none. */
  after(t: number): GpuPoint[] {
    let first = this.count;
    while (first > 0 && this.t[this.slot(first - 1)] > t) first -= 1;
    return this.range(first, this.count);
  }

  /** The points at or after `t`. */
  since(t: number): GpuPoint[] {
    return this.range(this.lowerBound(t), this.count);
  }

  /** The newest `n` points. */
  last(n: number): GpuPoint[] {
    return this.range(Math.max(0, this.count - n), this.count);
  }

  private range(from: number, to: number): GpuPoint[] {
    const points: GpuPoint[] = new Array<GpuPoint>(Math.max(0, to - from));
    for (let i = from; i < to; i += 1) points[i - from] = this.at(i);
    return points;
  }

  /** The first position whose time is not before `t`. */
  private lowerBound(t: number): number {
    let low = 0;
    let high = this.count;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.t[this.slot(mid)] < t) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private slot(index: number): number {
    return (this.start + index) % this.capacity;
  }

  private dropOldest(): void {
    this.start = (this.start + 1) % this.capacity;
    this.count -= 1;
  }

  private write(index: number, point: GpuPoint): void {
    const slot = this.slot(index);
    this.t[slot] = point.t;
    this.util[slot] = point.util ?? Number.NaN;
    this.mem[slot] = point.memUsedMiB ?? Number.NaN;
    this.power[slot] = point.powerW ?? Number.NaN;
    this.temp[slot] = point.tempC ?? Number.NaN;
  }

  private copy(from: number, to: number): void {
    const a = this.slot(from);
    const b = this.slot(to);
    this.t[b] = this.t[a];
    this.util[b] = this.util[a];
    this.mem[b] = this.mem[a];
    this.power[b] = this.power[a];
    this.temp[b] = this.temp[a];
  }
}

function nullable(value: number): number | null {
  return Number.isNaN(value) ? null : value;
}
