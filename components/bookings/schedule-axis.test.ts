process.env.TZ = "Asia/Kolkata";

import { describe, expect, it } from "vitest";
import { hourTicks, percentAt, slotAt } from "@/components/bookings/schedule-axis";

describe("the schedule's time axis", () => {
  it("puts hour lines on the viewer's hours, even in a half-hour zone, and names each day at its midnight", () => {
    // 18:30 UTC is midnight in India.
    const from = Date.parse("2026-12-01T10:30:00Z");
    const ticks = hourTicks(from, from + 20 * 3600_000, 6);
    expect(ticks[0]).toMatchObject({ ms: from, day: true });
    // Two hours before midnight, the start is not named: the midnight label would collide with it.
    expect(hourTicks(Date.parse("2026-12-01T16:30:00Z"), from + 20 * 3600_000, 6)[0]).toMatchObject({ day: false, label: null });
    const midnight = ticks.find((tick) => tick.ms === Date.parse("2026-12-01T18:30:00Z"));
    expect(midnight?.day).toBe(true);
    expect(midnight?.label).toMatch(/2/);
    expect(ticks.find((tick) => tick.ms === Date.parse("2026-12-02T00:30:00Z"))?.label).toBe("06:00");
  });

  it("maps times to positions and clicks to half hours", () => {
    expect(percentAt(50, 0, 100)).toBe(50);
    expect(percentAt(-5, 0, 100)).toBe(0);
    const from = Date.parse("2026-12-01T10:00:00Z");
    expect(new Date(slotAt(0.5, from, from + 4 * 3600_000)).toISOString()).toBe("2026-12-01T12:00:00.000Z");
    expect(new Date(slotAt(0.51, from, from + 4 * 3600_000)).toISOString()).toBe("2026-12-01T12:00:00.000Z");
  });
});

describe("labels that would collide", () => {
  it("leaves out an hour label right after a day's name and labels cut off at the right edge", () => {
    const from = Date.parse("2026-12-01T01:00:00Z"); // 06:30 in India
    const ticks = hourTicks(from, from + 24 * 3600_000, 2);
    expect(ticks[0].day).toBe(true);
    expect(ticks[1].label).toBeNull();
    const last = ticks[ticks.length - 1];
    expect(last.label).toBeNull();
  });
});
