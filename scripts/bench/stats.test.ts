import { describe, expect, it } from "vitest";
import { addTallies, HISTOGRAM_MAX_MS, LatencyHistogram, UpdateLedger } from "./stats";

describe("LatencyHistogram", () => {
  it("gives nearest-rank percentiles", () => {
    const histogram = new LatencyHistogram();
    for (let ms = 1; ms <= 100; ms++) histogram.record(ms);
    expect(histogram.summary()).toEqual({ count: 100, p50: 50, p95: 95, p99: 99, max: 100, mean: 50.5 });
  });

  it("clamps negative latencies to 0 and huge ones to the overflow bucket", () => {
    const histogram = new LatencyHistogram();
    histogram.record(-3);
    histogram.record(HISTOGRAM_MAX_MS * 2);
    expect(histogram.quantile(0.5)).toBe(0);
    expect(histogram.max).toBe(HISTOGRAM_MAX_MS);
  });

  it("merges and survives the sparse form", () => {
    const a = new LatencyHistogram();
    const b = new LatencyHistogram();
    [10, 20, 30].forEach((ms) => a.record(ms));
    [40, 40].forEach((ms) => b.record(ms));
    const merged = LatencyHistogram.fromSparse(a.toSparse());
    merged.merge(LatencyHistogram.fromSparse(b.toSparse()));
    expect(merged.summary()).toMatchObject({ count: 5, p50: 30, max: 40, mean: 28 });
  });

  it("answers NaN when empty", () => {
    expect(new LatencyHistogram().summary().p99).toBeNaN();
  });
});

describe("UpdateLedger", () => {
  const from = 1_700_000_000_000;

  it("counts every GPU-second of the window as on time, late or lost", () => {
    const ledger = new UpdateLedger(["a", "b"], from, from + 3000);
    expect(ledger.seconds).toBe(3);
    ledger.mark("a", from + 5, false);
    ledger.mark("a", from + 1005, true);
    ledger.mark("b", from + 2010, false);
    expect(ledger.tally()).toEqual({ expected: 6, onTime: 2, late: 1, lost: 3 });
  });

  it("ignores samples outside the window and unknown GPUs", () => {
    const ledger = new UpdateLedger(["a"], from, from + 2000);
    expect(ledger.mark("a", from - 600, false)).toBe(false);
    expect(ledger.mark("a", from + 1600, false)).toBe(false);
    expect(ledger.mark("z", from + 10, false)).toBe(false);
    expect(ledger.covers(from + 1499)).toBe(true);
    expect(ledger.tally().lost).toBe(2);
  });

  it("files a reading taken a moment before the second under that second", () => {
    const ledger = new UpdateLedger(["a"], from, from + 2000);
    ledger.mark("a", from - 1, false);
    ledger.mark("a", from + 999, false);
    expect(ledger.tally()).toEqual({ expected: 2, onTime: 2, late: 0, lost: 0 });
  });

  it("keeps an on-time copy over a late duplicate, and upgrades a late one", () => {
    const ledger = new UpdateLedger(["a"], from, from + 2000);
    ledger.mark("a", from + 1, false);
    ledger.mark("a", from + 2, true);
    ledger.mark("a", from + 1001, true);
    ledger.mark("a", from + 1002, false);
    expect(ledger.tally()).toEqual({ expected: 2, onTime: 2, late: 0, lost: 0 });
  });

  it("starts at the next whole second", () => {
    const ledger = new UpdateLedger(["a"], from + 400, from + 3000);
    expect(ledger.seconds).toBe(2);
    expect(ledger.covers(from + 400)).toBe(false);
  });

  it("adds tallies", () => {
    expect(addTallies({ expected: 2, onTime: 1, late: 1, lost: 0 }, { expected: 3, onTime: 1, late: 0, lost: 2 })).toEqual({
      expected: 5,
      onTime: 2,
      late: 1,
      lost: 2,
    });
  });
});
