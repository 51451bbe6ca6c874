import { describe, expect, it } from "vitest";
import { estimateNote, waitRequest } from "@/host/cli-client/wait-for-grant";

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

describe("estimateNote", () => {
  const work = { gpus: [{ hostName: "node-a", index: 1 }, { hostName: "node-a", index: 2 }], people: ["Bob Member"] };

  it("says the request waits for work without a booking, and who runs it, instead of a sliding time", () => {
    expect(estimateNote({ estimatedStartAt: null, waitsForUnbookedWork: work })).toBe(", waits for work without a booking to end (Bob Member on node-a GPUs 1, 2)");
    expect(estimateNote({ estimatedStartAt: "2026-11-30T12:00:00.000Z", waitsForUnbookedWork: work })).toBe(
      ", waits for work without a booking to end (Bob Member on node-a GPUs 1, 2), estimated start 2026-11-30 12:00Z at the latest",
    );
    expect(estimateNote({ estimatedStartAt: "2026-11-30T12:00:00.000Z", waitsForUnbookedWork: null })).toBe(", estimated start 2026-11-30 12:00Z");
    expect(estimateNote({ estimatedStartAt: null, waitsForUnbookedWork: null })).toBe("");
  });

  it("names a MIG slice as every surface does, not as its GPU's index", () => {
    const slices = { gpus: [{ hostName: "migbox", index: 0, mig: { deviceIndex: 2, profile: "1g.10gb" } }, { hostName: "node-a", index: 3 }], people: ["Bob Member"] };
    expect(estimateNote({ estimatedStartAt: null, waitsForUnbookedWork: slices })).toBe(", waits for work without a booking to end (Bob Member on migbox GPU 0:2 (1g.10gb); node-a GPU 3)");
  });

  it("says why the request waits in the server's sentence, with the estimate the reason allows", () => {
    const waitingBecause = {
      kind: "limit" as const,
      limit: "maxGpus" as const,
      scope: "team" as const,
      subject: "vision",
      used: 2,
      max: 3,
      requested: 2,
      freesAt: "2026-11-30T12:00:00.000Z",
      message: "waits for the team vision's limit: 2 of 3 GPUs at once in use, this request asks for 2; room from 2026-11-30 12:00 UTC",
    };
    expect(estimateNote({ estimatedStartAt: "2026-11-30T12:00:00.000Z", waitsForUnbookedWork: null, waitingBecause })).toBe(
      ", waits for the team vision's limit: 2 of 3 GPUs at once in use, this request asks for 2; room from 2026-11-30 12:00Z, estimated start 2026-11-30 12:00Z",
    );
  });
});
