import { describe, expect, it } from "vitest";
import { unitList, waitReasonSentence } from "@/lib/domain/waitlist-schema";
import { formatWhen } from "@/lib/format/local-time";

/**
 * The queue's reason is read once (issue 51): it named a host's GPUs one by
 * one ("alice holds h100-01 GPU 4 until …; alice holds h100-01 GPU 5 until
 * …"), so four of them filled it before the other bookings in the way, and
 * wrote "2026-12-07 15:04 UTC" on a page that says "today 15:04".
 */
const NOW = Date.parse("2026-12-07T12:00:00Z");
const local = (iso: string) => formatWhen(iso, NOW, { timeZone: "Europe/Berlin" });

describe("the queue's reason in words", () => {
  it("groups a host's GPUs into runs", () => {
    expect(unitList([4, 5, 6].map((index) => ({ index })))).toBe("GPU 4–6");
    expect(unitList([6, 0, 4, 2, 5].map((index) => ({ index })))).toBe("GPUs 0, 2, 4–6");
    expect(unitList([{ index: 3 }])).toBe("GPU 3");
    expect(unitList([{ index: 1 }, { index: 2 }])).toBe("GPUs 1, 2");
    expect(unitList([{ index: 0, mig: { deviceIndex: 2, profile: "1g.10gb" } }])).toBe("GPU 0:2 (1g.10gb)");
  });

  it("names each booking in the way once, with all its GPUs, in the reader's own time", () => {
    const until = "2026-12-07T14:04:00Z";
    const later = "2026-12-07T18:30:00Z";
    const bookers = [
      ...[4, 5, 6, 0, 2].map((gpuIndex) => ({ person: "Alice", hostName: "h100-01", gpuIndex, until })),
      { person: "Bob", hostName: "h100-02", gpuIndex: 1, until: later },
    ];
    const reason = { kind: "held" as const, bookers, heldOut: [{ host: "sim-a100-a", why: "the team may book h100-01, h100-02 only" }] };
    expect(waitReasonSentence(reason, local)).toBe(
      "GPUs held: Alice holds h100-01 GPUs 0, 2, 4–6 until today 15:04; Bob holds h100-02 GPU 1 until today 19:30; held out: sim-a100-a — the team may book h100-01, h100-02 only",
    );
    // The API's message: one format too, all UTC.
    expect(waitReasonSentence(reason)).toBe(
      "GPUs held: Alice holds h100-01 GPUs 0, 2, 4–6 until 2026-12-07 14:04 UTC; Bob holds h100-02 GPU 1 until 2026-12-07 18:30 UTC; held out: sim-a100-a — the team may book h100-01, h100-02 only",
    );
  });

  it("writes a limit's room in the same one format", () => {
    const reason = { kind: "limit" as const, scope: "team" as const, subject: "vision", limit: "maxGpus" as const, used: 2, max: 3, requested: 2, freesAt: "2026-12-07T14:04:00Z" };
    const sentence = waitReasonSentence(reason as Parameters<typeof waitReasonSentence>[0], local);
    expect(sentence).toBe("waits for the team vision's limit: 2 of 3 GPUs at once in use, this request asks for 2; room from today 15:04");
    expect(sentence).not.toContain("UTC");
  });

  it("names Slurm's jobs and reservations in the way after the bookings, a job without a time limit as such", () => {
    const bookers = [{ person: "Alice", hostName: "sim-2", gpuIndex: 4, until: "2026-12-07T14:04:00Z" }];
    const slurm = [
      { kind: "job" as const, id: "42", user: "bob", state: "running" as const, hostName: "sim-2", gpuIndices: [0, 1, 2, 3], until: "2026-12-07T20:00:00Z" },
      { kind: "reservation" as const, id: "maint", user: "root", state: "reserved" as const, hostName: "sim-2", gpuIndices: [5, 6, 7], until: null, noTimeLimit: true as const },
    ];
    expect(waitReasonSentence({ kind: "held", bookers: [], slurm: slurm.slice(0, 1) }, local)).toBe("waits for Slurm job 42 of bob on sim-2 GPU 0–3 until today 21:00");
    expect(waitReasonSentence({ kind: "held", bookers, slurm })).toBe(
      "GPUs held: Alice holds sim-2 GPU 4 until 2026-12-07 14:04 UTC; Slurm job 42 of bob on sim-2 GPU 0–3 until 2026-12-07 20:00 UTC; Slurm reservation maint on sim-2 GPU 5–7 (no time limit)",
    );
  });
});
