import { describe, expect, it } from "vitest";
import {
  DASH,
  formatClockTime,
  formatClockTimeSeconds,
  formatDateTime,
  formatGiB,
  formatMemory,
  formatMemoryUsage,
  formatPercent,
  formatPower,
  formatRelativeTime,
  formatTemperature,
  formatWatts,
  ratioPercent,
} from "@/lib/format/format";

describe("memory", () => {
  it("shows MiB as GiB with one decimal, dropping a trailing .0", () => {
    expect(formatGiB(12595.2)).toBe("12.3 GiB");
    expect(formatGiB(81920)).toBe("80 GiB");
    expect(formatGiB(143771)).toBe("140.4 GiB");
    expect(formatGiB(0)).toBe("0 GiB");
  });

  it("keeps small process memory in MiB", () => {
    expect(formatMemory(512)).toBe("512 MiB");
    expect(formatMemory(1023.6)).toBe("1024 MiB");
    expect(formatMemory(2048)).toBe("2 GiB");
  });

  it("shows used of total, with a dash for the unknown side", () => {
    expect(formatMemoryUsage(12595.2, 81920)).toBe("12.3 / 80 GiB");
    expect(formatMemoryUsage(null, 81920)).toBe(`${DASH} / 80 GiB`);
    expect(formatMemoryUsage(null, null)).toBe(DASH);
  });

  it("computes a bounded ratio and refuses to divide by an unknown total", () => {
    expect(ratioPercent(40, 80)).toBe(50);
    expect(ratioPercent(90, 80)).toBe(100);
    expect(ratioPercent(40, null)).toBeNull();
    expect(ratioPercent(40, 0)).toBeNull();
  });
});

describe("null is never zero", () => {
  it.each([
    ["formatGiB", formatGiB],
    ["formatMemory", formatMemory],
    ["formatPercent", formatPercent],
    ["formatWatts", formatWatts],
    ["formatTemperature", formatTemperature],
  ])("%s answers a dash for null, undefined and NaN", (_name, format) => {
    expect(format(null)).toBe(DASH);
    expect(format(undefined)).toBe(DASH);
    expect(format(Number.NaN)).toBe(DASH);
  });

  it("power needs a draw; the limit is optional", () => {
    expect(formatPower(null, 700)).toBe(DASH);
    expect(formatPower(245.4, null)).toBe("245 W");
  });
});

describe("units", () => {
  it("formats percent, watts and degrees", () => {
    expect(formatPercent(87.4)).toBe("87%");
    expect(formatPercent(0)).toBe("0%");
    expect(formatWatts(245.6)).toBe("246 W");
    expect(formatPower(245.4, 700)).toBe("245 / 700 W");
    expect(formatTemperature(63.6)).toBe("64 °C");
  });
});

describe("formatRelativeTime", () => {
  const now = Date.parse("2026-03-03T12:00:00Z");

  it("counts seconds, minutes, hours and days", () => {
    expect(formatRelativeTime(now - 3_000, now)).toBe("3 s ago");
    expect(formatRelativeTime(now - 59_999, now)).toBe("59 s ago");
    expect(formatRelativeTime(now - 5 * 60_000, now)).toBe("5 min ago");
    expect(formatRelativeTime(now - 3 * 3_600_000, now)).toBe("3 h ago");
    expect(formatRelativeTime(now - 3 * 86_400_000, now)).toBe("3 d ago");
  });

  it("accepts ISO strings and treats small clock skew as now", () => {
    expect(formatRelativeTime("2026-03-03T11:59:50Z", now)).toBe("10 s ago");
    expect(formatRelativeTime(now + 2_000, now)).toBe("just now");
  });

  it("says dash (or the given word) when there is no time", () => {
    expect(formatRelativeTime(null, now)).toBe(DASH);
    expect(formatRelativeTime(null, now, "never")).toBe("never");
    expect(formatRelativeTime("not a date", now)).toBe(DASH);
  });
});

describe("clock times", () => {
  const t = Date.parse("2026-03-03T13:05:09Z");

  it("formats in the given time zone, not the machine's", () => {
    expect(formatClockTime(t, { timeZone: "UTC", locale: "en-GB" })).toBe("13:05");
    expect(formatClockTime(t, { timeZone: "Asia/Tokyo", locale: "en-GB" })).toBe("22:05");
    expect(formatClockTimeSeconds(t, { timeZone: "America/New_York", locale: "en-GB" })).toBe("08:05:09");
  });

  it("formats a start time with its date", () => {
    expect(formatDateTime("2026-03-03T13:05:09Z", { timeZone: "UTC", locale: "en-GB" })).toBe("Tue 3 Mar, 13:05");
    expect(formatDateTime(null)).toBe(DASH);
  });
});
