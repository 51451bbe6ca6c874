import { describe, expect, it } from "vitest";
import type { GpuPoint } from "@/lib/live";
import { PointRing } from "@/server/fleet/point-ring";

const point = (t: number, util: number | null = t): GpuPoint => ({ t, util, memUsedMiB: t * 2, powerW: null, tempC: 40 });

describe("a GPU's history ring", () => {
  it("keeps the newest points in time order, replacing a repeated time, dropping the oldest when full", () => {
    const ring = new PointRing(4);
    for (const t of [10, 20, 30]) ring.insert(point(t));
    ring.insert(point(25)); // a replayed reading lands in the middle
    ring.insert(point(20, 99)); // the same reading again replaces it
    expect(ring.last(10).map((p) => [p.t, p.util])).toEqual([[10, 10], [20, 99], [25, 25], [30, 30]]);
    ring.insert(point(40)); // full: the oldest goes
    ring.insert(point(5)); // older than everything held, no room: dropped
    ring.insert(point(22)); // full, in the middle: the oldest goes, order kept
    expect(ring.last(10).map((p) => p.t)).toEqual([22, 25, 30, 40]);
    expect(ring.length).toBe(4);
    expect(ring.lastT()).toBe(40);
  });

  it("answers by time, keeps null as null, and wraps around many times", () => {
    const ring = new PointRing(900);
    for (let t = 1; t <= 5000; t += 1) ring.insert(point(t, t % 7 === 0 ? null : t));
    expect(ring.length).toBe(900);
    expect(ring.after(4998).map((p) => p.t)).toEqual([4999, 5000]);
    expect(ring.since(4991).map((p) => p.util)).toEqual([4991, 4992, 4993, 4994, 4995, 4996, 4997, 4998, 4999, 5000].map((t) => (t % 7 === 0 ? null : t)));
    expect(ring.last(1)[0]).toEqual({ t: 5000, util: 5000, memUsedMiB: 10000, powerW: null, tempC: 40 });
    expect(ring.since(0)[0].t).toBe(4101);
  });
});
