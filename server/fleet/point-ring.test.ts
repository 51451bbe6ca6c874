import { describe, expect, it } from "vitest";
import type { GpuPoint } from "@/lib/live/live";
import { PointRing } from "@/server/fleet/point-ring";

const point = (t: number, util: number | null = t % 101): GpuPoint => ({ t, util, memUsedMiB: t * 2, powerW: null, tempC: 40 });

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
    for (let t = 1; t <= 5000; t += 1) ring.insert(point(t, t % 7 === 0 ? null : t % 101));
    expect(ring.length).toBe(900);
    expect(ring.after(4998).map((p) => p.t)).toEqual([4999, 5000]);
    expect(ring.since(4991).map((p) => p.util)).toEqual([4991, 4992, 4993, 4994, 4995, 4996, 4997, 4998, 4999, 5000].map((t) => (t % 7 === 0 ? null : t % 101)));
    expect(ring.last(1)[0]).toEqual({ t: 5000, util: 5000 % 101, memUsedMiB: 10000, powerW: null, tempC: 40 });
    expect(ring.since(0)[0].t).toBe(4101);
  });

  it("keeps what the pages show: whole %, MiB and °C, tenths of a watt, null as null, times to the millisecond", () => {
    const ring = new PointRing(8);
    const t0 = Date.parse("2026-12-02T02:00:00.123Z");
    ring.insert({ t: t0, util: 37.4, memUsedMiB: 141_234.6, powerW: 612.37, tempC: 54.5 });
    ring.insert({ t: t0 + 1001, util: null, memUsedMiB: null, powerW: null, tempC: null });
    ring.insert({ t: t0 + 2002, util: 100, memUsedMiB: 0, powerW: 0, tempC: 0 });
    expect(ring.last(3)).toEqual([
      { t: t0, util: 37, memUsedMiB: 141_235, powerW: 612.4, tempC: 55 },
      { t: t0 + 1001, util: null, memUsedMiB: null, powerW: null, tempC: null },
      { t: t0 + 2002, util: 100, memUsedMiB: 0, powerW: 0, tempC: 0 },
    ]);
  });

  it("counts times from a new base when they run past what 32 bits hold, dropping only what is too old to count from it", () => {
    const ring = new PointRing(8);
    const day = 86_400_000;
    const t0 = Date.parse("2026-12-02T00:00:00Z");
    ring.insert(point(t0));
    ring.insert(point(t0 + 20 * day));
    ring.insert(point(t0 + 30 * day)); // past 24.8 days from the base: the first point is too old to keep
    expect(ring.last(8).map((p) => p.t)).toEqual([t0 + 20 * day, t0 + 30 * day]);
    ring.insert(point(t0 + 25 * day)); // a replayed reading between them still lands in order
    expect(ring.last(8).map((p) => p.t)).toEqual([t0 + 20 * day, t0 + 25 * day, t0 + 30 * day]);
    expect(ring.after(t0 + 21 * day).map((p) => p.t)).toEqual([t0 + 25 * day, t0 + 30 * day]);
  });
});
