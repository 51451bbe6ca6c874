/**
 * The benchmark's statistics: a latency histogram at 1 ms resolution that
 * viewer processes fill and the runner merges, and the count of updates a
 * viewer saw, missed or saw late. Pure code, unit-tested in stats.test.ts.
 */

/** Latencies above this land in the overflow bucket (reported as "at least"). */
export const HISTOGRAM_MAX_MS = 60_000;

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** Counts of whole milliseconds; mergeable across viewers and processes. */
export class LatencyHistogram {
  readonly counts: Uint32Array;
  count = 0;
  sum = 0;
  max = 0;

  constructor(counts?: ArrayLike<number>) {
    this.counts = new Uint32Array(HISTOGRAM_MAX_MS + 1);
    if (counts) {
      for (let ms = 0; ms < counts.length && ms <= HISTOGRAM_MAX_MS; ms++) {
        const n = counts[ms]!;
        if (n === 0) continue;
        this.counts[ms] = n;
        this.count += n;
        this.sum += n * ms;
        this.max = ms;
      }
    }
  }

  /** A negative latency (clock read before the sample's own time) counts as 0. */
  record(latencyMs: number): void {
    const ms = Math.min(HISTOGRAM_MAX_MS, Math.max(0, Math.round(latencyMs)));
    this.counts[ms]! += 1;
    this.count += 1;
    this.sum += ms;
    if (ms > this.max) this.max = ms;
  }

  merge(other: LatencyHistogram): void {
    for (let ms = 0; ms <= HISTOGRAM_MAX_MS; ms++) this.counts[ms]! += other.counts[ms]!;
    this.count += other.count;
    this.sum += other.sum;
    this.max = Math.max(this.max, other.max);
  }

  /** The smallest latency that at least `q` (0–1) of the recorded ones do not exceed (nearest rank). */
  quantile(q: number): number {
    if (this.count === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let ms = 0; ms <= HISTOGRAM_MAX_MS; ms++) {
      seen += this.counts[ms]!;
      if (seen >= rank) return ms;
    }
    return HISTOGRAM_MAX_MS;
  }

  summary(): LatencySummary {
    return {
      count: this.count,
      p50: this.quantile(0.5),
      p95: this.quantile(0.95),
      p99: this.quantile(0.99),
      max: this.max,
      mean: this.count === 0 ? Number.NaN : this.sum / this.count,
    };
  }

  /** Sparse form for sending between processes: [ms, count] pairs. */
  toSparse(): [number, number][] {
    const pairs: [number, number][] = [];
    this.counts.forEach((n, ms) => {
      if (n > 0) pairs.push([ms, n]);
    });
    return pairs;
  }

  static fromSparse(pairs: [number, number][]): LatencyHistogram {
    const counts = new Uint32Array(HISTOGRAM_MAX_MS + 1);
    for (const [ms, n] of pairs) counts[Math.min(HISTOGRAM_MAX_MS, ms)]! += n;
    return new LatencyHistogram(counts);
  }
}

/**
 * Which of the expected updates one viewer received: one per GPU per second
 * of the window (agents sample once a second, aligned to the second). A
 * reading belongs to the nearest whole second: a timer may fire a
 * millisecond early (…999 belongs to the next second) or late under load.
 */
export class UpdateLedger {
  private readonly seen: Uint8Array;
  private readonly index = new Map<string, number>();
  private readonly fromSecond: number;
  readonly seconds: number;

  /** Window [fromMs, toMs), whole seconds; `gpuUuids` is every GPU that should report. */
  constructor(gpuUuids: readonly string[], fromMs: number, toMs: number) {
    this.fromSecond = Math.ceil(fromMs / 1000);
    this.seconds = Math.max(0, Math.floor(toMs / 1000) - this.fromSecond);
    gpuUuids.forEach((uuid, i) => this.index.set(uuid, i));
    this.seen = new Uint8Array(gpuUuids.length * this.seconds);
  }

  /** Notes that a sample of `uuid` taken at `sampledAtMs` arrived; false when outside the window or unknown. */
  mark(uuid: string, sampledAtMs: number, late: boolean): boolean {
    const gpu = this.index.get(uuid);
    const second = Math.round(sampledAtMs / 1000) - this.fromSecond;
    if (gpu === undefined || second < 0 || second >= this.seconds) return false;
    const slot = gpu * this.seconds + second;
    // 1: on time, 2: only late; an on-time copy wins over a late one.
    if (this.seen[slot] === 1) return true;
    this.seen[slot] = late ? 2 : 1;
    return true;
  }

  /** Whether the window covers this sample time (the same test `mark` applies). */
  covers(sampledAtMs: number): boolean {
    const second = Math.round(sampledAtMs / 1000) - this.fromSecond;
    return second >= 0 && second < this.seconds;
  }

  tally(): UpdateTally {
    let onTime = 0;
    let late = 0;
    for (const value of this.seen) {
      if (value === 1) onTime += 1;
      else if (value === 2) late += 1;
    }
    const expected = this.seen.length;
    return { expected, onTime, late, lost: expected - onTime - late };
  }
}

export interface UpdateTally {
  /** GPUs × seconds of the window. */
  expected: number;
  onTime: number;
  /** Seen, but only after the late threshold. */
  late: number;
  /** Never seen by the end of the run. */
  lost: number;
}

export function addTallies(a: UpdateTally, b: UpdateTally): UpdateTally {
  return { expected: a.expected + b.expected, onTime: a.onTime + b.onTime, late: a.late + b.late, lost: a.lost + b.lost };
}

/** Mean and maximum of a series (RSS samples and the like). */
export function meanMax(values: readonly number[]): { mean: number; max: number } {
  if (values.length === 0) return { mean: Number.NaN, max: Number.NaN };
  return { mean: values.reduce((sum, v) => sum + v, 0) / values.length, max: Math.max(...values) };
}
