import { describe, expect, it } from "vitest";
import { recurringRequestSchema, weeklyStarts, zonedInstant } from "@/lib/recurrence";

describe("weekly occurrences", () => {
  it("books every weekday at the same wall-clock time, for the weeks asked", () => {
    // Monday 7 Dec 2026, 09:00 in Tokyo (00:00 UTC).
    const first = Date.parse("2026-12-07T00:00:00Z");
    const starts = weeklyStarts(first, [1, 2, 3, 4, 5], 2, "Asia/Tokyo");
    expect(starts.map((ms) => new Date(ms).toISOString())).toEqual([
      "2026-12-07T00:00:00.000Z",
      "2026-12-08T00:00:00.000Z",
      "2026-12-09T00:00:00.000Z",
      "2026-12-10T00:00:00.000Z",
      "2026-12-11T00:00:00.000Z",
      "2026-12-14T00:00:00.000Z",
      "2026-12-15T00:00:00.000Z",
      "2026-12-16T00:00:00.000Z",
      "2026-12-17T00:00:00.000Z",
      "2026-12-18T00:00:00.000Z",
    ]);
  });

  it("keeps 09:00 local across a clock change", () => {
    // Berlin leaves summer time on Sunday 25 Oct 2026: 09:00 is 07:00 UTC before, 08:00 UTC after.
    const first = Date.parse("2026-10-23T07:00:00Z");
    const starts = weeklyStarts(first, [5, 1], 2, "Europe/Berlin");
    expect(starts.map((ms) => new Date(ms).toISOString())).toEqual(["2026-10-23T07:00:00.000Z", "2026-10-26T08:00:00.000Z", "2026-10-30T08:00:00.000Z", "2026-11-02T08:00:00.000Z"]);
    expect(zonedInstant(2026, 10, 26, 9, 0, "Europe/Berlin")).toBe(Date.parse("2026-10-26T08:00:00Z"));
  });

  it("skips the first day when its weekday is not chosen", () => {
    const saturday = Date.parse("2026-12-05T09:00:00Z");
    expect(weeklyStarts(saturday, [1], 1, "UTC").map((ms) => new Date(ms).toISOString())).toEqual(["2026-12-07T09:00:00.000Z"]);
  });

  it("refuses more than 12 weeks, no weekday, or an unknown zone", () => {
    const booking = { host: "node-a", gpus: [0], startsAt: "2026-12-07T09:00:00Z", durationMinutes: 180, purpose: "course" };
    expect(recurringRequestSchema.safeParse({ booking, weekdays: [1], weeks: 12, timeZone: "Europe/Berlin" }).success).toBe(true);
    expect(recurringRequestSchema.safeParse({ booking, weekdays: [1], weeks: 13, timeZone: "UTC" }).success).toBe(false);
    expect(recurringRequestSchema.safeParse({ booking, weekdays: [], weeks: 2, timeZone: "UTC" }).success).toBe(false);
    expect(recurringRequestSchema.safeParse({ booking, weekdays: [1], weeks: 2, timeZone: "Mars/Olympus" }).success).toBe(false);
  });
});
