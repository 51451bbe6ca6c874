process.env.TZ = "Pacific/Auckland";

import { describe, expect, it } from "vitest";
import { dayKey, floorToHour, formatFull, formatWhen, fromLocalInput, setViewerTimeZone, toLocalInput } from "@/lib/format/local-time";

const zone = { timeZone: "America/Los_Angeles", locale: "en-GB" };

describe("times in the viewer's zone", () => {
  it("names today, tomorrow and other days in the viewer's zone, not UTC's", () => {
    const now = Date.parse("2026-12-01T20:00:00Z"); // 12:00 in Los Angeles
    expect(formatWhen("2026-12-02T01:30:00Z", now, zone)).toBe("today 17:30");
    expect(formatWhen("2026-12-02T17:00:00Z", now, zone)).toBe("tomorrow 09:00");
    expect(formatWhen("2026-12-05T17:00:00Z", now, zone)).toBe("Sat 5 Dec, 09:00");
    expect(dayKey(Date.parse("2026-12-02T01:30:00Z"), zone)).toBe("2026-12-01");
  });

  it("round-trips a datetime-local value through UTC in the browser's zone", () => {
    // The process zone here is Auckland (UTC+13 in December).
    expect(fromLocalInput("2026-12-02T09:00")).toBe("2026-12-01T20:00:00.000Z");
    expect(toLocalInput(Date.parse("2026-12-01T20:00:00Z"))).toBe("2026-12-02T09:00");
    expect(fromLocalInput("")).toBeUndefined();
  });

  it("uses the person's own zone, when set, for text and for datetime-local values alike", () => {
    setViewerTimeZone("Asia/Kolkata");
    try {
      expect(formatWhen("2026-12-02T03:30:00Z", Date.parse("2026-12-02T01:00:00Z"))).toBe("today 09:00");
      expect(fromLocalInput("2026-12-02T09:00")).toBe("2026-12-02T03:30:00.000Z");
      expect(toLocalInput(Date.parse("2026-12-02T03:30:00Z"))).toBe("2026-12-02T09:00");
      expect(new Date(floorToHour(Date.parse("2026-12-02T03:50:00Z"))).toISOString()).toBe("2026-12-02T03:30:00.000Z");
      expect(formatFull("2026-12-02T03:30:00Z")).toBe("Wed 2 Dec 2026, 09:00:00 Asia/Kolkata");
    } finally {
      setViewerTimeZone(null);
    }
  });
});
