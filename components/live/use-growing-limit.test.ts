import { describe, expect, it } from "vitest";
import { nextLimit, nextStep } from "@/components/live/use-growing-limit";

describe("nextStep (cards mounted per task)", () => {
  it("mounts as many as fit in the budget at the pace just measured", () => {
    // 16 cards took 32 ms: 2 ms each, 4 fit in 8 ms.
    expect(nextStep(16, 32, 8)).toBe(4);
    // 4 cards took 2 ms: 16 fit.
    expect(nextStep(4, 2, 8)).toBe(16);
  });
  it("mounts at least one card, however slow the last one was", () => {
    expect(nextStep(1, 120, 8)).toBe(1);
  });
  it("grows at most fourfold per task, even when the last task measured nothing", () => {
    expect(nextStep(16, 0.5, 8)).toBe(64);
    expect(nextStep(16, 0, 8)).toBe(64);
  });
});

describe("nextLimit (where the next task stops)", () => {
  // Three hosts: GPUs 0-7, 8-15 and 16-19.
  const ends = [8, 16, 20];
  it("goes on to the end of the host the step lands in, as that host is mounted whole", () => {
    expect(nextLimit(8, 1, 20, ends)).toBe(16);
    expect(nextLimit(0, 9, 20, ends)).toBe(16);
  });
  it("stops where the step ends when that is a host's end, and never past the total", () => {
    expect(nextLimit(8, 8, 20, ends)).toBe(16);
    expect(nextLimit(16, 64, 20, ends)).toBe(20);
  });
  it("without groups, grows by the step alone", () => {
    expect(nextLimit(16, 4, 66)).toBe(20);
  });
});
