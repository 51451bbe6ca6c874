import { describe, expect, it } from "vitest";
import { waitRequest } from "@/server/cli-client/wait-for-grant";

describe("waitRequest", () => {
  const now = Date.parse("2026-11-30T10:00:00Z");

  it("keeps a duration and turns an end time into one, counted from the grant", () => {
    expect(waitRequest({ count: 2, host: "node-a", durationMinutes: 240, purpose: "p" }, now)).toEqual({ count: 2, host: "node-a", durationMinutes: 240, purpose: "p" });
    expect(waitRequest({ count: 1, endsAt: "2026-11-30T11:30:00.000Z", purpose: "p" }, now)).toEqual({ count: 1, durationMinutes: 90, purpose: "p" });
  });

  it("refuses named GPUs", () => {
    expect(() => waitRequest({ host: "node-a", gpus: [0], durationMinutes: 60, purpose: "p" }, now)).toThrow(/not with --gpus/);
  });
});
