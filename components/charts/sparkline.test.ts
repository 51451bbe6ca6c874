import { describe, expect, it } from "vitest";
import { SPARKLINE_POINTS, type GpuPoint } from "@/lib/live/live";
import { sparklinePaths } from "@/components/charts/sparkline";

const point = (t: number, util: number | null): GpuPoint => ({ t, util, memUsedMiB: null, powerW: null, tempC: null });

describe("sparklinePaths", () => {
  it("puts the newest point at the right edge and a short history at the right", () => {
    expect(sparklinePaths([point(1, 0), point(2, 100)])).toEqual(["M118.0 31.0L120.0 1.0"]);
  });

  it("draws a full minute from the left edge to the right, 0 % at the bottom and 100 % at the top", () => {
    const points = Array.from({ length: SPARKLINE_POINTS }, (_, i) => point(i, i % 2 === 0 ? 0 : 100));
    const [path] = sparklinePaths(points);
    expect(path.startsWith("M0.0 31.0L2.0 1.0")).toBe(true);
    expect(path.endsWith("L120.0 1.0")).toBe(true);
  });

  it("breaks the line at a missing value instead of dropping it to zero", () => {
    expect(sparklinePaths([point(1, 50), point(2, 50), point(3, null), point(4, 25)])).toEqual(["M113.9 16.0L115.9 16.0", "M120.0 23.5"]);
  });

  it("places fractional and out-of-range values as the whole percents are placed", () => {
    expect(sparklinePaths([point(1, 12.5), point(2, 140), point(3, -5)])).toEqual(["M115.9 27.3L118.0 1.0L120.0 31.0"]);
  });

  it("is empty without points", () => {
    expect(sparklinePaths([])).toEqual([]);
  });
});
