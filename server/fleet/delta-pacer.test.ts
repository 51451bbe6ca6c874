import { describe, expect, it } from "vitest";
import { DeltaPacer } from "@/server/fleet/delta-pacer";

/** Flushes every `flushMs` from `from` to `to`, with the changes waiting at each; the times at which a delta went. */
function flushes(pacer: DeltaPacer, flushMs: number, from: number, to: number, pendingAt: (t: number) => number): number[] {
  const sent: number[] = [];
  let drained = 0;
  for (let t = from; t <= to; t += flushMs) {
    const pending = Math.max(0, pendingAt(t) - drained);
    if (pacer.due(pending, t)) {
      pacer.sent();
      drained += pending;
      sent.push(t);
    }
  }
  return sent;
}

/** A burst: `count` readings arriving evenly from `start` over `spreadMs`; how many have come by `t`. */
const burst = (start: number, spreadMs: number, count: number) => (t: number) =>
  t < start ? 0 : Math.min(count, Math.floor(((t - start) / Math.max(1, spreadMs)) * count) + 1);

describe("the live feed's delta pacing", () => {
  it("sends a burst of readings as one delta, within one flush and the quiet time of its last reading", () => {
    const pacer = new DeltaPacer({ quietMs: 20, maxHoldMs: 100 });
    // 125 hosts reporting over 60 ms after the whole second, as the bench's agents do.
    const sent = flushes(pacer, 25, 1000, 2000, burst(1010, 60, 125));
    expect(sent).toHaveLength(1);
    const lastReading = 1070;
    expect(sent[0]! - lastReading).toBeLessThanOrEqual(25 + 20);
  });

  it("holds no reading longer than the most it may wait, even while a long burst still arrives", () => {
    const pacer = new DeltaPacer({ quietMs: 20, maxHoldMs: 100 });
    // 500 hosts over 400 ms (a busy server at 4,000 GPUs): parts go out as the burst goes on.
    const arrivals = burst(1000, 400, 500);
    const sent = flushes(pacer, 25, 1000, 2000, arrivals);
    let previous = 1000 - 25;
    for (const at of sent) {
      expect(at - previous).toBeLessThanOrEqual(100 + 25);
      previous = at;
    }
    expect(sent.at(-1)!).toBeLessThanOrEqual(1400 + 25 + 20);
    expect(sent.length).toBeLessThanOrEqual(5);
  });

  it("sends a reading alone at the first flush that finds nothing newer", () => {
    const pacer = new DeltaPacer({ quietMs: 20, maxHoldMs: 100 });
    expect(pacer.due(1, 0)).toBe(false);
    expect(pacer.due(1, 25)).toBe(true);
    pacer.sent();
    expect(pacer.due(0, 50)).toBe(false);
  });
});
