import { describe, expect, it } from "vitest";
import { endFields, parseCount, parseDurationMinutes, parseGpuList, parseMemoryMiB, parseUntil } from "@/host/cli-client/parse-args";

describe("parseDurationMinutes", () => {
  it.each([
    ["90m", 90],
    ["4h", 240],
    ["1h30m", 90],
    ["2d", 2880],
    ["1.5h", 90],
    ["45", 45],
    ["1w", 10080],
    ["30min", 30],
  ])("%s is %i minutes", (text, minutes) => {
    expect(parseDurationMinutes(text)).toBe(minutes);
  });

  it.each(["", "4x", "h", "4h junk", "0m", "-1h"])("rejects %j with a usage error", (text) => {
    expect(() => parseDurationMinutes(text)).toThrow(expect.objectContaining({ name: "UsageError" }));
  });
});

describe("parseMemoryMiB", () => {
  it.each([
    ["40G", 40960],
    ["40GiB", 40960],
    ["40gb", 40960],
    ["512M", 512],
    ["1.5T", 1572864],
    ["2048", 2048],
  ])("%s is %i MiB", (text, mib) => {
    expect(parseMemoryMiB(text)).toBe(mib);
  });

  it.each(["", "G", "40X", "forty"])("rejects %j", (text) => {
    expect(() => parseMemoryMiB(text)).toThrow(/not a memory size/);
  });
});

describe("parseGpuList and parseCount", () => {
  it("reads indices", () => {
    expect(parseGpuList("0,1")).toEqual([0, 1]);
    expect(parseGpuList("3 5")).toEqual([3, 5]);
  });

  it("rejects junk and repeats", () => {
    expect(() => parseGpuList("a,b")).toThrow(/not a list/);
    expect(() => parseGpuList("1,1")).toThrow(/twice/);
  });

  it("counts from 1", () => {
    expect(parseCount("2")).toBe(2);
    expect(() => parseCount("0")).toThrow(/not a number of GPUs/);
    expect(() => parseCount("two")).toThrow(/not a number of GPUs/);
  });
});

describe("parseUntil and endFields", () => {
  const now = new Date("2026-11-30T10:00:00Z");

  it("takes an ISO time in the future", () => {
    expect(parseUntil("2026-11-30T18:00:00Z", now).toISOString()).toBe("2026-11-30T18:00:00.000Z");
    expect(() => parseUntil("2026-11-30T09:00:00Z", now)).toThrow(/has passed/);
  });

  it("takes a time of day as the next such local time", () => {
    const end = parseUntil("18:30", now);
    expect(end.getHours()).toBe(18);
    expect(end.getMinutes()).toBe(30);
    expect(end.getTime()).toBeGreaterThan(now.getTime());
    expect(end.getTime() - now.getTime()).toBeLessThanOrEqual(24 * 3600_000);
  });

  it("needs exactly one of --for and --until", () => {
    expect(endFields({ for: "2h" }, now)).toEqual({ durationMinutes: 120 });
    expect(endFields({ until: "2026-11-30T12:00:00Z" }, now)).toEqual({ endsAt: "2026-11-30T12:00:00.000Z" });
    expect(() => endFields({}, now)).toThrow(/how long/);
    expect(() => endFields({ for: "1h", until: "12:00" }, now)).toThrow(/not both/);
  });
});
