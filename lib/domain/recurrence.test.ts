import { describe, expect, it } from "vitest";
import { previewSeries, recurringRequestSchema, weeklyStarts, zonedInstant } from "@/lib/domain/recurrence";

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

describe("a weekly series previewed against the policy", () => {
  it("lists, before submit, the days the advance limit would refuse (12 weeks offered, 30 days allowed)", () => {
    const nowMs = Date.parse("2026-12-07T08:00:00Z");
    const days = previewSeries(Date.parse("2026-12-07T09:00:00Z"), 3600_000, [1, 3, 5], 12, "UTC", { maxDurationMinutes: 24 * 60, maxAdvanceDays: 30 }, nowMs);
    expect(days).toHaveLength(36);
    const refused = days.filter((day) => day.refusal !== null);
    // Mondays, Wednesdays and Fridays after 6 January 09:00 UTC lie beyond 30 days.
    expect(new Date(refused[0]!.startMs).toISOString()).toBe("2027-01-06T09:00:00.000Z");
    expect(refused.length).toBe(36 - 13);
    expect(refused[0]!.refusal).toBe("You can book at most 30 days ahead");
    expect(days.filter((day) => day.startMs <= nowMs + 30 * 24 * 3600_000).every((day) => day.refusal === null)).toBe(true);
  });

  it("refuses every day of a series longer than the longest booking", () => {
    const days = previewSeries(Date.parse("2026-12-07T09:00:00Z"), 5 * 3600_000, [1], 2, "UTC", { maxDurationMinutes: 240, maxAdvanceDays: 30 }, Date.parse("2026-12-07T08:00:00Z"));
    expect(days.map((day) => day.refusal)).toEqual(["A booking lasts at most 4 h", "A booking lasts at most 4 h"]);
  });
});
