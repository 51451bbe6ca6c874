import { describe, expect, it } from "vitest";
import { chartScales, niceStep, paddedDomain, timeAxis, toChartRows, upperBound, zeroBasedAxis } from "@/lib/live/gpu-series";

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

describe("paddedDomain", () => {
  it("pads to whole steps and stays at or above zero", () => {
    const rows = toChartRows([
      { t: 1, util: 1, memUsedMiB: 1, powerW: 1, tempC: 38 },
      { t: 2, util: 1, memUsedMiB: 1, powerW: 1, tempC: 44 },
    ]);
    expect(paddedDomain(rows, "tempC", 10)).toEqual([30, 50]);
    expect(paddedDomain(rows, "powerW", 50)).toEqual([0, 50]);
    expect(paddedDomain([], "tempC", 10)).toBeUndefined();
  });
});

describe("value axes", () => {
  it("picks round steps", () => {
    expect(niceStep(700)).toBe(200);
    expect(niceStep(450)).toBe(100);
    expect(niceStep(79.6)).toBe(20);
    expect(niceStep(0)).toBe(1);
  });

  it("ends on the first round tick at or above the top", () => {
    expect(zeroBasedAxis(700)).toEqual({ domain: [0, 800], ticks: [0, 200, 400, 600, 800] });
    expect(zeroBasedAxis(400)).toEqual({ domain: [0, 400], ticks: [0, 100, 200, 300, 400] });
    expect(zeroBasedAxis(79.6).domain).toEqual([0, 80]);
  });

  it("draws memory against the total and power against the limit", () => {
    const rows = toChartRows([{ t: 1, util: 50, memUsedMiB: 10240, powerW: 300, tempC: 61 }]);
    const scales = chartScales(rows, { memoryTotalMiB: 81510, powerLimitW: 700 });
    expect(scales.memGiB.domain).toEqual([0, 80]);
    expect(scales.memGiB.totalGiB).toBeCloseTo(79.6, 1);
    expect(scales.powerW.domain).toEqual([0, 800]);
    expect(scales.tempC).toEqual({ domain: [50, 70], ticks: [50, 55, 60, 65, 70] });
  });
});
