import { describe, expect, it } from "vitest";
import { gpuHoursOf, HOUR_MS, peakWindowGpuHours, WEEK_MS } from "@/server/bookings/rules/gpu-hours";
import { describeWindows, firstInstantOutside, nextInstantInside } from "@/server/bookings/rules/host-rules";
import { ruleFor } from "@/lib/domain/host-rule-match";

const T0 = Date.parse("2026-11-30T00:00:00Z"); // a Monday
const h = (hours: number) => T0 + hours * HOUR_MS;

describe("gpuHoursOf", () => {
  it("sums GPU-hours inside the window, clipping ranges at its edges", () => {
    const ranges = [
      { startMs: h(-2), endMs: h(2), gpus: 2 },
      { startMs: h(5), endMs: h(6), gpus: 1 },
    ];
    expect(gpuHoursOf(ranges, h(0), h(10))).toBeCloseTo(5);
  });

  it("with a half-life, an hour booked one half-life before the end counts half", () => {
    const halfLife = 7 * 24 * HOUR_MS;
    const oneHour = [{ startMs: h(0), endMs: h(1), gpus: 1 }];
    expect(gpuHoursOf(oneHour, h(-1000), h(1) + halfLife, halfLife)).toBeCloseTo(0.5, 2);
    expect(gpuHoursOf(oneHour, h(-1000), h(1) + 2 * halfLife, halfLife)).toBeCloseTo(0.25, 2);
  });
});

describe("peakWindowGpuHours", () => {
  it("finds the 7-day window that holds the most, among those touching the booking", () => {
    const ranges = [
      { startMs: h(0), endMs: h(10), gpus: 1 },
      { startMs: h(24 * 6), endMs: h(24 * 6 + 10), gpus: 1 },
      { startMs: h(24 * 20), endMs: h(24 * 20 + 100), gpus: 1 },
    ];
    // A booking on day 6 shares a week with day 0 but not with day 20.
    expect(peakWindowGpuHours(ranges, WEEK_MS, h(24 * 6), h(24 * 6 + 10)).hours).toBeCloseTo(20);
    // A booking of 1 hour on day 14 (counted with the rest) shares a week with the first 24 hours of day 20's.
    const asked = { startMs: h(24 * 14), endMs: h(24 * 14 + 1), gpus: 1 };
    expect(peakWindowGpuHours([...ranges, asked], WEEK_MS, asked.startMs, asked.endMs).hours).toBeCloseTo(25);
  });
});

describe("host rules", () => {
  const weekdays = { host: "vision-*", windows: [{ days: [1, 2, 3, 4, 5], from: "00:00", to: "24:00" }] };
  const weekend = { host: "vision-*", windows: [{ days: [0, 6], from: "00:00", to: "24:00" }] };

  it("the first rule whose pattern matches decides; no match: not allowed", () => {
    expect(ruleFor([weekend, { host: "*" }], "vision-1")).toBe(weekend);
    expect(ruleFor([weekend, { host: "*" }], "node-a")).toEqual({ host: "*" });
    expect(ruleFor([weekend], "node-a")).toBeNull();
    expect(ruleFor([{ host: "a.b" }], "axb")).toBeNull();
  });

  it("a booking inside the windows passes; one that runs past them names the instant", () => {
    expect(firstInstantOutside(weekdays, h(9), h(17))).toBeNull();
    // Friday 20:00 to Saturday 04:00: out at Saturday 00:00.
    expect(firstInstantOutside(weekdays, h(24 * 4 + 20), h(24 * 5 + 4))).toBe(h(24 * 5));
    expect(firstInstantOutside(weekend, h(24 * 5 + 1), h(24 * 7))).toBeNull();
    expect(firstInstantOutside({ host: "*" }, h(0), h(24 * 365))).toBeNull();
  });

  it("walks a year-long booking edge by edge", () => {
    expect(firstInstantOutside(weekdays, h(0), h(24 * 365))).toBe(h(24 * 5));
  });

  it("the next instant inside: a weekend rule on a Monday answers Saturday 00:00", () => {
    expect(nextInstantInside(weekend, h(10))).toBe(h(24 * 5));
    expect(nextInstantInside(weekdays, h(10))).toBe(h(10));
  });

  it("windows read in the rule's time zone", () => {
    const berlinWeekdays = { ...weekdays, timeZone: "Europe/Berlin" };
    // Friday 23:30 UTC is Saturday 00:30 in Berlin (UTC+1 in December).
    expect(firstInstantOutside(berlinWeekdays, h(24 * 4 + 23.5), h(24 * 4 + 23.75))).toBe(h(24 * 4 + 23.5));
    expect(firstInstantOutside(weekdays, h(24 * 4 + 23.5), h(24 * 4 + 23.75))).toBeNull();
    expect(describeWindows(berlinWeekdays)).toBe("Mon–Fri 00:00–24:00 (Europe/Berlin)");
  });
});
