import type { GpuPoint } from "@/lib/live/live";

/** The null of each quantized column: a value no reading takes. */
const NO_UTIL = 0xff;
const NO_TEMP = 0xff;
const NO_MEM = 0xffff_ffff;
const NO_POWER = 0xffff;
const INT32_MAX = 0x7fff_ffff;

/**
 * A GPU's recent history as a ring of quantized typed columns: 15 minutes
 * at 1 Hz is 900 points per GPU. A point is 12 bytes: its time as
 * milliseconds from the ring's base (Int32, ±24 days), utilization and
 * temperature as whole numbers (one byte each), memory as whole MiB (four)
 * and power in tenths of a watt (two); each column keeps one value for null.
 * That is what the pages read and the wire sends (whole %, MiB, W, °C;
 * docs/live-protocol.md), at 12 bytes instead of 40 as five Float64 columns
 * (and not millions of small objects, as points were once). Points stay in
 * time order: live readings append; replayed ones from an agent's buffer
 * may land in the middle; a point with a time already held replaces it, so
 * a replay that repeats a reading does not double it.
 */
export class PointRing {
  private readonly t: Int32Array;
  private readonly util: Uint8Array;
  private readonly temp: Uint8Array;
  private readonly mem: Uint32Array;
  private readonly power: Uint16Array;
  /** Time (ms) that `t` counts from: the first point's, moved on when a time no longer fits. */
  private base = Number.NaN;
  private start = 0;
  private count = 0;

  constructor(private readonly capacity: number) {
    this.t = new Int32Array(capacity);
    this.util = new Uint8Array(capacity);
    this.temp = new Uint8Array(capacity);
    this.mem = new Uint32Array(capacity);
    this.power = new Uint16Array(capacity);
  }

  get length(): number {
    return this.count;
  }

  /** Time (ms) of the newest point; -Infinity when empty. */
  lastT(): number {
    return this.count === 0 ? Number.NEGATIVE_INFINITY : this.timeAt(this.count - 1);
  }

  insert(point: GpuPoint): void {
    if (this.count === 0) this.base = point.t;
    if (point.t - this.base > INT32_MAX) this.rebase(point.t);
    // More than 24 days older than the ring's base: no page shows it.
    if (this.base - point.t > INT32_MAX) return;
    if (this.count === 0 || point.t > this.lastT()) {
      if (this.count === this.capacity) this.dropOldest();
      this.write(this.count, point);
      this.count += 1;
      return;
    }
    let low = this.lowerBound(point.t);
    if (low < this.count && this.timeAt(low) === point.t) return this.write(low, point);
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
    const util = this.util[slot];
    const mem = this.mem[slot];
    const power = this.power[slot];
    const temp = this.temp[slot];
    return {
      t: this.base + this.t[slot],
      util: util === NO_UTIL ? null : util,
      memUsedMiB: mem === NO_MEM ? null : mem,
      powerW: power === NO_POWER ? null : power / 10,
      tempC: temp === NO_TEMP ? null : temp,
    };
  }

  /** The points with a time after `t`, found from the end: usually one or none. */
  after(t: number): GpuPoint[] {
    let first = this.count;
    while (first > 0 && this.timeAt(first - 1) > t) first -= 1;
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

  private timeAt(index: number): number {
    return this.base + this.t[this.slot(index)];
  }

  /** The first position whose time is not before `t`. */
  private lowerBound(t: number): number {
    let low = 0;
    let high = this.count;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.timeAt(mid) < t) low = mid + 1;
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

  /** Counts from `t` (a time past what the column can hold) from now on, dropping points too old to count from there. */
  private rebase(t: number): void {
    while (this.count > 0 && t - this.timeAt(0) > INT32_MAX) this.dropOldest();
    for (let i = 0; i < this.count; i += 1) {
      const slot = this.slot(i);
      this.t[slot] = this.base + this.t[slot] - t;
    }
    this.base = t;
  }

  private write(index: number, point: GpuPoint): void {
    const slot = this.slot(index);
    this.t[slot] = point.t - this.base;
    this.util[slot] = quantize(point.util, 1, NO_UTIL);
    this.mem[slot] = quantize(point.memUsedMiB, 1, NO_MEM);
    this.power[slot] = quantize(point.powerW, 10, NO_POWER);
    this.temp[slot] = quantize(point.tempC, 1, NO_TEMP);
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

/** A value in units of 1/`scale`, rounded and kept below the column's null (negatives as 0). */
function quantize(value: number | null, scale: number, none: number): number {
  if (value === null || !Number.isFinite(value)) return none;
  return Math.min(none - 1, Math.max(0, Math.round(value * scale)));
}
