import { describe, expect, it } from "vitest";
import { formatAxisTime, formatBucket, formatGpuHours, formatRange, niceTicks, timeTicks } from "@/lib/format/usage-format";

const HOUR = 3600_000;

describe("usage formatting", () => {
  it("puts ticks on whole local times", () => {
    const from = Date.UTC(2026, 10, 30, 10, 7);
    const ticks = timeTicks(from, from + 24 * HOUR, 8, { timeZone: "Asia/Kolkata" });
    // Every 3 hours on the local clock (UTC+05:30).
    expect(ticks.map((t) => formatAxisTime(t, 24 * HOUR, { timeZone: "Asia/Kolkata" }))).toEqual([
      "18:00",
      "21:00",
      "00:00",
      "03:00",
      "06:00",
      "09:00",
      "12:00",
      "15:00",
    ]);
  });

  it("labels days on week-long axes and dates on month-long ones", () => {
    const midnight = Date.UTC(2026, 10, 27);
    expect(formatAxisTime(midnight, 7 * 24 * HOUR, { timeZone: "UTC" })).toBe("Fri 27");
    expect(formatAxisTime(midnight + 12 * HOUR, 7 * 24 * HOUR, { timeZone: "UTC" })).toBe("Fri 27 12:00");
    expect(formatAxisTime(midnight, 30 * 24 * HOUR, { timeZone: "UTC" })).toBe("27 Nov");
    expect(formatBucket(midnight + 23 * HOUR, HOUR, { timeZone: "UTC" })).toBe("27 Nov 23:00 – 28 Nov 00:00");
  });

  it("formats GPU-hours", () => {
    expect(formatGpuHours(0)).toBe("0");
    expect(formatGpuHours(0.01)).toBe("< 0.1");
    expect(formatGpuHours(12.34)).toBe("12.3");
    expect(formatGpuHours(1234.5)).toBe("1,235");
    expect(formatGpuHours(null)).toBe("—");
  });

  it("picks round value ticks", () => {
    expect(niceTicks(216)).toEqual([0, 100, 200, 300]);
    expect(niceTicks(180)).toEqual([0, 50, 100, 150, 200]);
    expect(niceTicks(0.7)).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
  });
});

describe("formatRange", () => {
  it("names each end's year when the range crosses a year, as a year's range does", () => {
    const to = Date.parse("2026-12-07T21:00:00Z");
    const text = formatRange(to - 365 * 24 * 3_600_000, to, { timeZone: "UTC" });
    expect(text).toContain("2025");
    expect(text).toContain("2026");
  });
  it("leaves the year out within one year", () => {
    const to = Date.parse("2026-12-07T21:00:00Z");
    expect(formatRange(to - 24 * 3_600_000, to, { timeZone: "UTC" })).not.toMatch(/20\d\d/);
  });
});
