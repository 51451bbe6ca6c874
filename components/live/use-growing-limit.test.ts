import { describe, expect, it } from "vitest";
import { nextStep } from "@/components/live/use-growing-limit";

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
