import { describe, expect, it } from "vitest";
import { stateWithoutBooking } from "@/lib/domain/state-without-booking";

const reading = (processes: { pid: number; user: string | null }[], memoryUsedMiB = 0) => ({
  eccErrorsUncorrected: 0,
  processes,
  memoryUsedMiB,
  memoryTotalMiB: 81_920,
  utilizationGpuPct: 0,
});

describe("a GPU's state leaving its booking aside", () => {
  it("is free with nothing running, and in use without a booking when something runs, whoever the reconciler says it is", () => {
    expect(stateWithoutBooking(reading([]), true).state).toBe("free");
    const bob = { id: "u-bob", username: "bob", name: "Bob" };
    const known = {
      processes: [{ pid: 5, runner: bob, reservationId: null, login: "bob", evidence: { kind: "login" as const, value: "bob" }, intruder: false }],
    };
    const state = stateWithoutBooking(reading([{ pid: 5, user: "bob" }, { pid: 6, user: "carol" }]), true, known);
    expect(state).toMatchObject({ state: "unbooked_use", reservationId: null, bookedBy: null });
    expect(state.processes.map((process) => [process.pid, process.runner?.id ?? null, process.login])).toEqual([
      [5, "u-bob", "bob"],
      [6, null, "carol"],
    ]);
  });

  it("is offline for a silent host and in use for memory held with no process listed", () => {
    expect(stateWithoutBooking(reading([]), false).state).toBe("offline");
    expect(stateWithoutBooking(reading([], 40_960), true)).toMatchObject({ state: "unbooked_use", unseenUse: expect.anything() });
  });
});
