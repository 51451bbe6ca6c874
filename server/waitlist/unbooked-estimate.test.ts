import { beforeAll, describe, expect, it } from "vitest";
import type { ProcessInfo } from "@/lib/domain/snapshot";
import { FleetState } from "@/server/fleet/fleet-state";
import { makeProcess, makeSnapshot } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The queue's estimate where GPUs run work without a booking: the estimate
 * never says "now" for GPUs someone uses (a time that slides with the
 * clock); it says the request waits for that work, and who runs it.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let fleet: FleetState;
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
let listWaitlist: typeof import("@/server/waitlist/list-waitlist").listWaitlist;
let createTestUser: Fixtures["createTestUser"];
let createTestHost: Fixtures["createTestHost"];

beforeAll(async () => {
  await useTestDatabase();
  const { setRuntime } = await import("@/server/runtime/runtime");
  fleet = new FleetState({ offlineAfterMs: 60_000, simulated: false });
  setRuntime({ fleet, ingest: {} as never, disconnectAgents: () => {} });
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ joinWaitlist } = await import("@/server/waitlist/join-waitlist"));
  ({ listWaitlist } = await import("@/server/waitlist/list-waitlist"));
  ({ createTestUser, createTestHost } = await import("@/server/testing/booking-fixtures"));
}, 120_000);

async function hostRunning(count: number, processes: Record<number, Partial<ProcessInfo>>) {
  const host = await createTestHost(count, "queue");
  fleet.connectHost(host.id, host.name, false);
  const running = Object.entries(processes).map(([index, overrides]) => makeProcess(host.gpus[Number(index)], overrides));
  fleet.ingest(host.id, makeSnapshot(host.gpus, Date.now(), { host: { name: host.name, driverVersion: "580", cudaVersion: "13.0" }, processes: running }));
  return host;
}

describe("estimates next to work without a booking", () => {
  it("estimates from the bookings elsewhere on the host and says who runs unbooked", async () => {
    const host = await hostRunning(2, { 1: { pid: 71, user: "bobunbooked" } });
    const [bookedBy, waiter] = await Promise.all([createTestUser(), createTestUser()]);
    const booked = await createBooking(bookedBy, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "holds GPU 0" });
    const entry = await joinWaitlist(waiter, { count: 1, host: host.name, durationMinutes: 30, purpose: "queued" });

    const first = (await listWaitlist()).find((view) => view.id === entry.id)!;
    expect(first.waitsForUnbookedWork).toEqual({ gpus: [{ hostName: host.name, index: 1 }], people: ["bobunbooked"] });
    // Not "any moment": GPU 0's booking ends at a fixed time, and that is the estimate.
    expect(first.estimatedStartAt).toBe(booked.endsAt);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await listWaitlist()).find((view) => view.id === entry.id)!.estimatedStartAt).toBe(booked.endsAt);
  });

  it("gives no time at all where only unbooked work stands in the way", async () => {
    const host = await hostRunning(1, { 0: { pid: 72, user: "carolunbooked" } });
    const waiter = await createTestUser();
    const entry = await joinWaitlist(waiter, { count: 1, host: host.name, durationMinutes: 30, purpose: "queued" });
    const view = (await listWaitlist()).find((candidate) => candidate.id === entry.id)!;
    expect(view.estimatedStartAt).toBeNull();
    expect(view.waitsForUnbookedWork).toEqual({ gpus: [{ hostName: host.name, index: 0 }], people: ["carolunbooked"] });
  });

  it("waits for use with no visible process as for any unbooked work, with nobody to name", async () => {
    const host = await createTestHost(1, "queue");
    fleet.connectHost(host.id, host.name, false);
    const held = host.gpus.map((gpu) => ({ ...gpu, memoryUsedMiB: 40_960, utilizationGpuPct: 87 }));
    fleet.ingest(host.id, makeSnapshot(held, Date.now(), { host: { name: host.name, driverVersion: "580", cudaVersion: "13.0" } }));
    const entry = await joinWaitlist(await createTestUser(), { count: 1, host: host.name, durationMinutes: 30, purpose: "queued" });
    const view = (await listWaitlist()).find((candidate) => candidate.id === entry.id)!;
    expect(view.estimatedStartAt).toBeNull();
    expect(view.waitsForUnbookedWork).toEqual({ gpus: [{ hostName: host.name, index: 0 }], people: ["someone (no process visible)"] });
  });

  it("says nothing of unbooked work when a request does not need those GPUs", async () => {
    const host = await hostRunning(2, {});
    const waiter = await createTestUser();
    const entry = await joinWaitlist(waiter, { count: 2, host: host.name, durationMinutes: 30, purpose: "queued" });
    const view = (await listWaitlist()).find((candidate) => candidate.id === entry.id)!;
    expect(view.waitsForUnbookedWork).toBeNull();
  });
});
