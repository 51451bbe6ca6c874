import { describe, expect, it } from "vitest";
import type { GpuReconciliation, ProcessAttribution } from "@/lib/domain/attribution";
import type { OpenAlertRef } from "@/server/tick/tick-view";
import { planTerminations } from "@/server/enforcement/enforcement-plan";

const alice = { id: "u-alice", username: "alice", name: "Alice" };
const bob = { id: "u-bob", username: "bob", name: "Bob" };

function process(pid: number, overrides: Partial<ProcessAttribution>): ProcessAttribution {
  return { pid, runner: null, reservationId: null, login: null, evidence: { kind: "none", value: null }, intruder: true, ...overrides };
}

const reconciliation: Record<string, GpuReconciliation> = {
  "GPU-1": {
    state: "conflict",
    reservationId: "res-1",
    bookedBy: alice,
    problem: null,
    processes: [
      process(1, { runner: alice, login: "alice", evidence: { kind: "login", value: "alice" }, intruder: false }),
      process(2, { runner: bob, login: "bob", evidence: { kind: "login", value: "bob" } }),
      process(3, { login: "mallory", evidence: { kind: "login", value: "mallory" } }),
      // Root in a container nobody could be named for: maybe the booker's own job.
      process(4, { login: "root", evidence: { kind: "container", value: "aaaaaaaaaaaa" } }),
      process(5, { login: "root", evidence: { kind: "login", value: "root" } }),
      // Alice's login, claimed by no booking of hers: still never hers to lose.
      process(6, { login: "alice", evidence: { kind: "login", value: "alice" } }),
    ],
  },
};

const alert: OpenAlertRef = { id: "a1", kind: "conflict", hostId: "h1", gpuUuid: "GPU-1", reservationId: "res-1", openedAt: 0 };

function plan(nowMs: number, overrides: { alerts?: OpenAlertRef[]; enforced?: boolean } = {}) {
  return planTerminations({
    nowMs,
    openAlerts: overrides.alerts ?? [alert],
    enforced: new Map(overrides.enforced === false ? [] : [["h1", { graceSeconds: 60, killAfterSeconds: 10 }]]),
    reconciliation,
    gpus: new Map(),
    loginOf: (id) => (id === alice.id ? "alice" : null),
  }).map((target) => target.process.pid);
}

describe("planTerminations", () => {
  it("waits for the grace period after the conflict opened", () => {
    expect(plan(59_999)).toEqual([]);
    expect(plan(60_000)).toEqual([2, 3]);
  });

  it("targets only processes proven to be someone else's: never the booker's, never an unattributed root", () => {
    expect(plan(120_000)).not.toContain(1);
    expect(plan(120_000)).not.toContain(4);
    expect(plan(120_000)).not.toContain(5);
    expect(plan(120_000)).not.toContain(6);
  });

  it("does nothing on a host without enforcement, or once the GPU is booked by someone else", () => {
    expect(plan(120_000, { enforced: false })).toEqual([]);
    expect(plan(120_000, { alerts: [{ ...alert, reservationId: "res-old" }] })).toEqual([]);
    expect(plan(120_000, { alerts: [{ ...alert, kind: "idle_booking" }] })).toEqual([]);
  });
});
