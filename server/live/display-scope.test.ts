import { describe, expect, it } from "vitest";
import type { GpuReconciliation, ProcessAttribution } from "@/lib/domain/attribution";
import { unbookedRunnerName } from "@/lib/live/display-from-fleet";
import { liveBookingFixture, liveGpuFixture } from "@/lib/testing/live-fixtures";
import { DisplayScope, type DisplaySources } from "@/server/live/display-scope";
import { SlotRegistry } from "@/server/live/member-encoder";

const NOW = Date.parse("2026-12-01T10:00:30Z");
const frank = { id: "u-frank", username: "frank", name: "Frank Ortiz" };
const bob = { id: "u-bob", username: "bob", name: "Bob Member" };

function process(pid: number, person: typeof frank | null, login: string): ProcessAttribution {
  return { pid, runner: person, reservationId: null, login, evidence: { kind: "login", value: login }, intruder: true };
}

/** GPU 0 runs Frank's job with no booking; GPU 1 is Bob's, booked and running. */
function sources(): DisplaySources {
  const unbooked = liveGpuFixture("GPU-0", ["frank-unix"], { utilizationGpuPct: 90, memoryUsedMiB: 20_000 });
  const booked = liveGpuFixture("GPU-1", ["bob-unix"], { index: 1, utilizationGpuPct: 80, memoryUsedMiB: 20_000 });
  const states: Record<string, GpuReconciliation> = {
    "GPU-0": { state: "unbooked_use", reservationId: null, bookedBy: null, processes: [process(0, frank, "frank-unix")], problem: null },
    "GPU-1": { state: "booked_in_use", reservationId: "r1", bookedBy: bob, processes: [{ ...process(100, bob, "bob-unix"), reservationId: "r1", intruder: false }], problem: null },
  };
  return {
    fleet: () => ({ hosts: [{ id: "h1", name: "node-a", online: true, lastSeenAt: "2026-12-01T10:00:00Z", gpuUuids: ["GPU-0", "GPU-1"] } as never], gpus: [unbooked, booked] }),
    gpuStates: () => states,
    bookings: () => [liveBookingFixture([{ uuid: "GPU-1", index: 1 }], bob, { purpose: "secret purpose" })],
    openAlerts: () => 1,
    simulated: false,
  };
}

describe("the display scope's reduced view", () => {
  it("leaves out who runs without a booking by default (the display's setting is off)", () => {
    const scope = new DisplayScope(sources(), new SlotRegistry());
    scope.step(NOW);
    const text = JSON.stringify(scope.snapshot("*"));
    const gpu = scope.snapshot("*").gpus.find((entry) => entry.uuid === "GPU-0");
    expect(gpu).toMatchObject({ state: "unbooked_use", bookedByName: null });
    expect(gpu).not.toHaveProperty("runnerName");
    expect(text).not.toContain("Frank");
    for (const secret of ["frank-unix", "bob-unix", "train-", "secret purpose", "r1"]) expect(text).not.toContain(secret);
  });

  it("names who runs without a booking, by display name only, where the display's setting is on", () => {
    const scope = new DisplayScope(sources(), new SlotRegistry(), { namesUnbookedRunner: true });
    scope.step(NOW);
    const snapshot = scope.snapshot("*");
    expect(snapshot.gpus.find((entry) => entry.uuid === "GPU-0")).toMatchObject({ state: "unbooked_use", runnerName: "Frank Ortiz" });
    // A booked GPU names its booking's person as always, and no runner.
    expect(snapshot.gpus.find((entry) => entry.uuid === "GPU-1")).toMatchObject({ bookedByName: "Bob Member" });
    expect(snapshot.gpus.find((entry) => entry.uuid === "GPU-1")).not.toHaveProperty("runnerName");
    const text = JSON.stringify(snapshot);
    for (const secret of ["frank-unix", "frank\"", "train-", "secret purpose", "r1"]) expect(text).not.toContain(secret);
  });

  it("names the first person and how many more; nobody known gives no name", () => {
    const base = { state: "unbooked_use" as const, reservationId: null, bookedBy: null, problem: null };
    expect(unbookedRunnerName({ ...base, processes: [process(1, frank, "a"), process(2, bob, "b"), process(3, frank, "a")] })).toBe("Frank Ortiz +1");
    expect(unbookedRunnerName({ ...base, processes: [process(1, null, "root")] })).toBeNull();
    expect(unbookedRunnerName(undefined)).toBeNull();
  });
});
