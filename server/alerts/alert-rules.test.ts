import { describe, expect, it } from "vitest";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { LiveGpu, LiveHost } from "@/lib/live/live";
import { DEFAULT_ALERT_CONFIG } from "@/server/alerts/alert-config";
import { evaluateRules, silentFor } from "@/server/alerts/alert-rules";
import { deriveGpuState } from "@/lib/domain/gpu-availability";
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
        bookedBy: alice,
        processes: [{ pid: 7, runner: bob, reservationId: null, login: "bob", evidence: { kind: "login", value: "bob" }, falseClaim: "r1", intruder: true }],
        problem: null,
      },
    };
    const { conditions } = evaluateRules({
      nowMs: Date.now(),
      view: { hosts: [host], gpus: [gpu] },
      reconciliation,
      knownHosts: new Map([["h1", "node-a"]]),
      expectedGpus: new Map([["h1", new Map([[gpu.uuid, { index: 0 }]])]]),
      activeBookings: new Map(),
      idleStandings: new Map(),
      config: DEFAULT_ALERT_CONFIG,
      isActive: () => false,
    });
    const conflict = conditions.find((condition) => condition.kind === "conflict");
    expect(conflict?.message).toBe("Bob (via login bob · claims reservation r1 without its proof) runs on GPU 0 of node-a, booked by Alice");
    expect(conflict?.evidence).toMatchObject({ processes: [{ pid: 7, falseClaim: "r1", via: "via login bob · claims reservation r1 without its proof", intruder: true }] });
  });

  it("says a process nothing names an owner for once, on a slice by its unit name (it read 'unknown (owner unknown) runs on GPU 0')", () => {
    const sample = makeGpu({ index: 0, uuid: "MIG-a", utilizationGpuPct: null, migMode: "Enabled", mig: { parentUuid: "GPU-p", profile: "3g.40gb", gpuInstanceId: 2, computeInstanceId: 0, deviceIndex: 0 } });
    const gpu: LiveGpu = { ...sample, hostId: "h1", hostName: "node-a", sampledAt: new Date().toISOString(), processes: [makeProcess(sample, { pid: 9, user: null })] };
    const host: LiveHost = { id: "h1", name: "node-a", simulated: false, online: true, lastSeenAt: null, driverVersion: null, cudaVersion: null, gpuUuids: [gpu.uuid] };
    const reconciliation: Record<string, GpuReconciliation> = {
      [gpu.uuid]: { state: "conflict", reservationId: "r1", bookedBy: alice, processes: [{ pid: 9, runner: null, reservationId: null, login: null, evidence: { kind: "none", value: null }, intruder: true }], problem: null },
    };
    const { conditions } = evaluateRules({
      nowMs: Date.now(),
      view: { hosts: [host], gpus: [gpu] },
      reconciliation,
      knownHosts: new Map([["h1", "node-a"]]),
      expectedGpus: new Map([["h1", new Map([[gpu.uuid, { index: 0, mig: { deviceIndex: 0, profile: "3g.40gb" } }]])]]),
      activeBookings: new Map(),
      idleStandings: new Map(),
      config: DEFAULT_ALERT_CONFIG,
      isActive: () => false,
    });
    expect(conditions.find((condition) => condition.kind === "conflict")?.message).toBe("An unknown owner runs on GPU 0:0 (3g.40gb) of node-a, booked by Alice");
  });
});

describe("use with no visible process", () => {
  const host: LiveHost = { id: "h1", name: "node-a", simulated: false, online: true, lastSeenAt: null, driverVersion: null, cudaVersion: null, gpuUuids: [] };
  function evaluate(reading: Partial<LiveGpu>, booked: boolean, idleMinutes = 0) {
    const sample = makeGpu({ index: 0, memoryUsedMiB: 40_960, memoryTotalMiB: 81_920, utilizationGpuPct: 87, ...reading });
    const gpu: LiveGpu = { ...sample, hostId: "h1", hostName: "node-a", sampledAt: new Date().toISOString(), processes: [] };
    const state = deriveGpuState({ gpu, online: true, booking: booked ? { reservationId: "r1", bookedBy: alice } : null, attributions: new Map() });
    const { conditions } = evaluateRules({
      nowMs: Date.now(),
      view: { hosts: [{ ...host, gpuUuids: [gpu.uuid] }], gpus: [gpu] },
      reconciliation: { [gpu.uuid]: state },
      knownHosts: new Map([["h1", "node-a"]]),
      expectedGpus: new Map([["h1", new Map([[gpu.uuid, { index: 0 }]])]]),
      activeBookings: new Map(),
      idleStandings: new Map(idleMinutes > 0 ? [["r1", { idleMinutes, belowPct: 5 }]] : []),
      config: DEFAULT_ALERT_CONFIG,
      isActive: () => false,
    });
    return conditions;
  }

  it("is use without a booking when nobody booked the GPU, with nobody to name", () => {
    const unbooked = evaluate({}, false).find((condition) => condition.kind === "unbooked_use");
    expect(unbooked?.message).toBe("GPU 0 of node-a is in use without a booking, no process visible (40 GiB held)");
    expect(unbooked?.userIds).toEqual([]);
    expect(unbooked?.evidence).toMatchObject({ processes: [], memoryUsedMiB: 40_960, noProcessVisible: true });
  });

  it("is the booker's busy booking when booked: no conflict, no idle booking", () => {
    expect(evaluate({}, true).map((condition) => condition.kind)).toEqual([]);
    // An idle booking is one the stored minutes found idle for the hold time (server/bookings/rules/idle-rule.ts).
    expect(evaluate({ memoryUsedMiB: 0, utilizationGpuPct: 0 }, true, 29).map((condition) => condition.kind)).toEqual([]);
    const [idle] = evaluate({ memoryUsedMiB: 0, utilizationGpuPct: 0 }, true, 30);
    expect(idle?.kind).toBe("idle_booking");
    expect(idle?.message).toBe("GPU 0 of node-a, booked by Alice, below 5 % utilization for 30 min");
  });
});

describe("a unit gone from its host", () => {
  const slice = "MIG-11111111-2222-3333-4444-555555555555";
  const host: LiveHost = { id: "h1", name: "node-a", simulated: false, online: true, lastSeenAt: null, driverVersion: null, cudaVersion: null, gpuUuids: [] };
  const booking = (id: string, bookedBy: typeof alice, startsInMinutes: number) => ({
    reservationId: id,
    hostId: "h1",
    hostName: "node-a",
    gpus: [{ uuid: slice, index: 0 }],
    bookedBy,
    startsAt: new Date(Date.now() + startsInMinutes * 60_000).toISOString(),
    endsAt: new Date(Date.now() + (startsInMinutes + 60) * 60_000).toISOString(),
    purpose: "p",
  });
  function lost(active: ReturnType<typeof booking> | null, bookings: ReturnType<typeof booking>[]) {
    const { conditions } = evaluateRules({
      nowMs: Date.now(),
      view: { hosts: [host], gpus: [] },
      reconciliation: {},
      knownHosts: new Map([["h1", "node-a"]]),
      expectedGpus: new Map([["h1", new Map([[slice, { index: 0, mig: { deviceIndex: 2, profile: "1g.10gb" } }]])]]),
      activeBookings: new Map(active ? [[slice, active]] : []),
      bookings,
      idleStandings: new Map(),
      config: DEFAULT_ALERT_CONFIG,
      isActive: () => false,
    });
    return conditions.find((condition) => condition.kind === "gpu_lost");
  }

  it("names the booker of a booking to come on a vanished slice, not only of the one running", () => {
    const future = booking("r-later", bob, 24 * 60);
    const condition = lost(null, [future]);
    expect(condition?.userIds).toEqual([bob.id]);
    expect(condition?.bookingId).toBe("r-later");
    expect(condition?.message).toBe("GPU 0:2 (1g.10gb) is gone from node-a: its GPU's MIG layout changed, and a booking holds it later");
    expect(condition?.evidence).toMatchObject({ reservationIds: ["r-later"] });
  });

  it("names every booker, the running booking's first", () => {
    const now = booking("r-now", alice, -10);
    const condition = lost(now, [now, booking("r-later", bob, 120), booking("r-again", alice, 300)]);
    expect(condition?.userIds).toEqual([alice.id, bob.id]);
    expect(condition?.bookingId).toBe("r-now");
    expect(condition?.message).toContain("and 3 bookings hold it");
    expect(condition?.evidence).toMatchObject({ reservationIds: ["r-now", "r-later", "r-again"] });
  });

  it("names nobody when no booking holds it", () => {
    const condition = lost(null, []);
    expect(condition?.userIds).toEqual([]);
    expect(condition?.message).toBe("GPU 0:2 (1g.10gb) is gone from node-a: its GPU's MIG layout changed");
  });
});

describe("memory pressure on a MIG slice", () => {
  it("names the slice and compares with the slice's memory, not its GPU's", () => {
    const host: LiveHost = { id: "h1", name: "migbox", simulated: false, online: true, lastSeenAt: null, driverVersion: null, cudaVersion: null, gpuUuids: [] };
    // The GPU holds 44 of 80 GiB in all; its slice 0:2 (1g.10gb) is full.
    const parent = makeGpu({ index: 0, migMode: "Enabled", memoryUsedMiB: 45_056, memoryTotalMiB: 81_559, utilizationGpuPct: null });
    const sliceSample = makeGpu({ index: 0, uuid: "MIG-slice-02", migMode: "Enabled", memoryUsedMiB: 9_600, memoryTotalMiB: 9_984, utilizationGpuPct: null, mig: { parentUuid: parent.uuid, profile: "1g.10gb", gpuInstanceId: 9, computeInstanceId: 0, deviceIndex: 2 } });
    const live = (sample: typeof parent, processes: LiveGpu["processes"]): LiveGpu => ({ ...sample, hostId: "h1", hostName: "migbox", sampledAt: new Date().toISOString(), processes });
    const gpus = [live(parent, []), live(sliceSample, [makeProcess(sliceSample, { pid: 9, user: "nina" })])];
    const { conditions } = evaluateRules({
      nowMs: Date.now(),
      view: { hosts: [{ ...host, gpuUuids: gpus.map((gpu) => gpu.uuid) }], gpus },
      reconciliation: Object.fromEntries(gpus.map((gpu) => [gpu.uuid, deviceState(gpu)])),
      knownHosts: new Map([["h1", "migbox"]]),
      expectedGpus: new Map([["h1", new Map(gpus.map((gpu) => [gpu.uuid, { index: 0 }]))]]),
      activeBookings: new Map(),
      idleStandings: new Map(),
      config: DEFAULT_ALERT_CONFIG,
      isActive: () => false,
    });
    const pressure = conditions.filter((condition) => condition.kind === "memory_pressure");
    expect(pressure.map((condition) => condition.message)).toEqual(["GPU 0:2 (1g.10gb) of migbox at 96 % of its memory (9.4 GiB of 9.8 GiB): the next allocation may fail"]);
  });
});

describe("an idle booking of a MIG slice", () => {
  it("names the slice and says what idle means for it (no process, no memory held), not a utilization it has not got", () => {
    const host: LiveHost = { id: "h1", name: "migbox", simulated: false, online: true, lastSeenAt: null, driverVersion: null, cudaVersion: null, gpuUuids: [] };
    const sample = makeGpu({ index: 0, uuid: "MIG-idle", migMode: "Enabled", memoryUsedMiB: 17, memoryTotalMiB: 9_984, utilizationGpuPct: null, mig: { parentUuid: "GPU-P", profile: "1g.10gb", gpuInstanceId: 9, computeInstanceId: 0, deviceIndex: 2 } });
    const gpu: LiveGpu = { ...sample, hostId: "h1", hostName: "migbox", sampledAt: new Date().toISOString(), processes: [] };
    const state = deriveGpuState({ gpu, online: true, booking: { reservationId: "r1", bookedBy: alice }, attributions: new Map() });
    expect(state.state).toBe("booked_idle");
    const { conditions } = evaluateRules({
      nowMs: Date.now(),
      view: { hosts: [{ ...host, gpuUuids: [gpu.uuid] }], gpus: [gpu] },
      reconciliation: { [gpu.uuid]: state },
      knownHosts: new Map([["h1", "migbox"]]),
      expectedGpus: new Map([["h1", new Map([[gpu.uuid, { index: 0 }]])]]),
      activeBookings: new Map(),
      idleStandings: new Map([["r1", { idleMinutes: 45, belowPct: 5 }]]),
      config: DEFAULT_ALERT_CONFIG,
      isActive: () => false,
    });
    expect(conditions.find((condition) => condition.kind === "idle_booking")?.message).toBe("GPU 0:2 (1g.10gb) of migbox, booked by Alice, with no process and no memory held for 45 min");
  });
});

function deviceState(gpu: LiveGpu) {
  return deriveGpuState({ gpu, online: true, booking: null, attributions: new Map() });
}

describe("the host-offline sentence matches its setting", () => {
  it("says 'more than 1 min' for a 60 s setting only once a minute of silence was seen", () => {
    const seen = "2026-12-07T15:00:00.000Z";
    const at = (seconds: number) => Date.parse(seen) + seconds * 1000;
    expect(silentFor("node-a", seen, at(41), 60_000)).toBe("The agent of node-a has been silent for 41 s");
    expect(silentFor("node-a", seen, at(60), 60_000)).toBe("The agent of node-a has been silent for more than 1 min");
    expect(silentFor("node-a", null, at(5), 60_000)).toBe("The agent of node-a has not reported since this server started");
  });
});
