import { describe, expect, it } from "vitest";
import { formatAge, formatDisplayTime, formatUpdateTime } from "@/lib/format/display-time";

// Pinned zones: the tests must not depend on the machine's.
const berlin = { timeZone: "Europe/Berlin", locale: "en-GB" };
const NOW = Date.parse("2026-12-01T10:00:00Z"); // Tuesday, 11:00 in Berlin

describe("formatDisplayTime", () => {
  it("gives the clock time today, the weekday within the week, the date beyond", () => {
    expect(formatDisplayTime("2026-12-01T13:00:00Z", NOW, berlin)).toBe("14:00");
    expect(formatDisplayTime("2026-12-02T08:30:00Z", NOW, berlin)).toBe("Wed 09:30");
    expect(formatDisplayTime("2026-12-20T08:30:00Z", NOW, berlin)).toBe("20 Dec 09:30");
  });

  it("decides 'today' in the display's zone, not in UTC", () => {
    // 23:30 UTC on 1 Dec is 00:30 on 2 Dec in Berlin.
    expect(formatDisplayTime("2026-12-01T23:30:00Z", NOW, berlin)).toBe("Wed 00:30");
    expect(formatDisplayTime("2026-12-01T23:30:00Z", NOW, { timeZone: "UTC", locale: "en-GB" })).toBe("23:30");
  });

  it("answers an empty string for a broken time", () => {
    expect(formatDisplayTime("not a time", NOW, berlin)).toBe("");
  });
});

describe("formatUpdateTime and formatAge", () => {
  it("formats the last update with seconds, and ages as a person says them", () => {
    expect(formatUpdateTime(Date.parse("2026-12-01T10:05:09Z"), berlin)).toBe("11:05:09");
    expect(formatAge(42_500)).toBe("42 s");
    expect(formatAge(3 * 60_000 + 5_000)).toBe("3 min");
    expect(formatAge(2 * 3600_000 + 7 * 60_000)).toBe("2 h 7 min");
    expect(formatAge(-5)).toBe("0 s");
  });
});
