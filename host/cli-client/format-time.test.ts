// Under a zone far from UTC, as a person in Tokyo runs the CLI.
process.env.TZ = "Asia/Tokyo";
import { describe, expect, it } from "vitest";
import { formatTime } from "@/host/cli-client/format-output";

describe("the CLI's times", () => {
  it("print in the machine's zone with its offset, not in UTC", () => {
    expect(formatTime("2026-11-30T12:00:00.000Z")).toBe("2026-11-30 21:00 +09:00");
    expect(formatTime("2026-11-30T20:30:00Z")).toBe("2026-12-01 05:30 +09:00");
  });
});
