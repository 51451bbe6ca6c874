import { describe, expect, it } from "vitest";
import type { GpuReconciliation } from "@/lib/attribution";
import type { LiveGpu, LiveHost } from "@/lib/live";
import { DEFAULT_ALERT_CONFIG } from "@/server/alerts/alert-config";
import { evaluateRules } from "@/server/alerts/alert-rules";
import { makeGpu, makeProcess } from "@/server/testing/factories";

const alice = { id: "u-alice", username: "alice", name: "Alice" };
const bob = { id: "u-bob", username: "bob", name: "Bob" };

describe("the conflict rule", () => {
  it("names a process that claims the booking without its proof, in the message and the evidence", () => {
    const sample = makeGpu({ index: 0 });
    const gpu: LiveGpu = { ...sample, hostId: "h1", hostName: "node-a", sampledAt: new Date().toISOString(), processes: [makeProcess(sample, { pid: 7, user: "bob", reservationId: "r1", reservationProven: false })] };
    const host: LiveHost = { id: "h1", name: "node-a", simulated: false, online: true, lastSeenAt: null, driverVersion: null, cudaVersion: null, gpuUuids: [gpu.uuid] };
    const reconciliation: Record<string, GpuReconciliation> = {
      [gpu.uuid]: {
        state: "conflict",
        reservationId: "r1",
        holder: alice,
        processes: [{ pid: 7, person: bob, reservationId: null, login: "bob", evidence: { kind: "login", value: "bob" }, falseClaim: "r1", intruder: true }],
        problem: null,
      },
    };
    const { conditions } = evaluateRules({
      nowMs: Date.now(),
      view: { hosts: [host], gpus: [gpu] },
      reconciliation,
      knownHosts: new Map([["h1", "node-a"]]),
      expectedGpus: new Map([["h1", new Map([[gpu.uuid, 0]])]]),
      activeBookings: new Map(),
      config: DEFAULT_ALERT_CONFIG,
      isActive: () => false,
    });
    const conflict = conditions.find((condition) => condition.kind === "conflict");
    expect(conflict?.message).toBe("Bob (via login bob · claims reservation r1 without its proof) runs on GPU 0 of node-a, booked by Alice");
    expect(conflict?.evidence).toMatchObject({ processes: [{ pid: 7, falseClaim: "r1", via: "via login bob · claims reservation r1 without its proof", intruder: true }] });
  });
});
