import { describe, expect, it } from "vitest";
import { timeAxis, toChartRows, upperBound } from "@/lib/gpu-series";

describe("toChartRows", () => {
  it("converts memory to GiB and keeps nulls as gaps", () => {
    const rows = toChartRows([
      { t: 1, util: 50, memUsedMiB: 2048, powerW: 300, tempC: 60 },
      { t: 2, util: null, memUsedMiB: null, powerW: null, tempC: null },
    ]);
    expect(rows[0]).toEqual({ t: 1, util: 50, memGiB: 2, powerW: 300, tempC: 60 });
    expect(rows[1]).toEqual({ t: 2, util: null, memGiB: null, powerW: null, tempC: null });
  });
});

describe("timeAxis", () => {
  it("spans 15 minutes with ticks on whole 3-minute marks", () => {
    const end = Date.parse("2026-03-03T12:07:30Z");
    const axis = timeAxis(end);
    expect(axis.domain).toEqual([end - 15 * 60_000, end]);
    expect(axis.ticks.map((t) => new Date(t).toISOString().slice(11, 16))).toEqual([
      "11:54",
      "11:57",
      "12:00",
      "12:03",
      "12:06",
    ]);
  });
});

describe("upperBound", () => {
  it("uses the limit unless a reading exceeds it", () => {
    const rows = toChartRows([{ t: 1, util: 1, memUsedMiB: 1, powerW: 720, tempC: null }]);
    expect(upperBound(rows, "powerW", 700)).toBe(720);
    expect(upperBound(rows, "powerW", 800)).toBe(800);
    expect(upperBound(rows, "tempC", null)).toBeUndefined();
  });
});
