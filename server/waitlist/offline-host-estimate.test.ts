import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { GpuSample } from "@/lib/domain/snapshot";
import { FleetState } from "@/server/fleet/fleet-state";
import { makeSnapshot } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The queue next to a host that is down (issue 50): an offline host is not
 * "free now". A 2 × 2 request waiting while a host it needs is offline
 * says so ("… b is offline (not reporting)") and gets no estimate (nobody
 * knows when the host comes back), instead of "starts now" and a
 * `waitingBecause` of null rolling forward every minute.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let fleet: FleetState;
let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
let multiNodeWait: typeof import("@/server/waitlist/join-waitlist").multiNodeWait;
let listWaitlist: typeof import("@/server/waitlist/list-waitlist").listWaitlist;
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let db: typeof import("@/server/core/db").db;
let fx: Fixtures;

const NOW = new Date("2026-12-01T10:00:00Z");

beforeAll(async () => {
  await useTestDatabase();
  const { setRuntime } = await import("@/server/runtime/runtime");
  fleet = new FleetState({ offlineAfterMs: 60_000, simulated: false });
  setRuntime({ fleet, ingest: {} as never, disconnectAgents: () => {} });
  ({ joinWaitlist, multiNodeWait } = await import("@/server/waitlist/join-waitlist"));
  ({ listWaitlist } = await import("@/server/waitlist/list-waitlist"));
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
}, 120_000);

beforeEach(async () => {
  await db().waitlistEntry.updateMany({ where: { status: "waiting" }, data: { status: "left" } });
});

/** The host reports: online by the fleet's rule. */
function reports(host: { id: string; name: string; gpus: GpuSample[] }) {
  fleet.connectHost(host.id, host.name, false);
  fleet.ingest(host.id, makeSnapshot(host.gpus, Date.now(), { host: { name: host.name, driverVersion: "580", cudaVersion: "13.0" } }));
}

async function viewOf(id: string) {
  const view = (await listWaitlist(NOW)).find((entry) => entry.id === id);
  if (!view) throw new Error(`request ${id} is not in the queue`);
  return view;
}

describe("the queue while a host is offline", () => {
  it("a request across nodes that needs the offline host names it and has no estimate; once it reports, the request fits now", async () => {
    const [a, b] = [await fx.createTestHost(2, "qa"), await fx.createTestHost(2, "qb")];
    reports(a);
    reports(b);
    fleet.disconnectHost(b.id);
    const person = await fx.createTestUser();
    const entry = await joinWaitlist(person, multiNodeWait({ nodes: 2, gpusPerNode: 2, model: "H100", durationMinutes: 60, purpose: "needs both" }), { now: NOW });

    const waiting = await viewOf(entry.id);
    expect(waiting.waitingBecause).toMatchObject({ kind: "host_offline", hosts: [b.name] });
    expect(waiting.waitingBecause?.message).toBe(`needs 2 hosts with 2 free H100 each: 1 has them now (${a.name}); ${b.name} is offline (not reporting)`);
    expect(waiting.estimatedStartAt).toBeNull();

    reports(b);
    const back = await viewOf(entry.id);
    expect(back.waitingBecause).toBeNull();
    expect(back.estimatedStartAt).toBe(NOW.toISOString());
  });

  it("while the offline host is needed and the other is booked, the estimate is none; a request ahead that the online host can hold keeps its time", async () => {
    const [a, b] = [await fx.createTestHost(2, "qc"), await fx.createTestHost(2, "qd")];
    reports(a);
    reports(b);
    fleet.disconnectHost(b.id);
    const [holder, person] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    await createBooking(holder, { host: a.name, gpus: [0, 1], durationMinutes: 30, purpose: "holds a" }, { now: NOW });
    const oneHost = await joinWaitlist(holder, { count: 2, host: a.name, durationMinutes: 30, purpose: "a alone" }, { now: NOW });
    const across = await joinWaitlist(person, multiNodeWait({ parts: [{ host: a.name, gpus: 2 }, { host: b.name, gpus: 2 }], durationMinutes: 60, purpose: "a and b" }), { now: NOW });

    const waiting = await viewOf(across.id);
    expect(waiting.waitingBecause).toMatchObject({ kind: "host_offline", hosts: [b.name] });
    expect(waiting.waitingBecause?.message).toBe(`needs ${a.name} and ${b.name} at once: none is free now; ${b.name} is offline (not reporting)`);
    expect(waiting.estimatedStartAt).toBeNull();
    // The request of the online host (ahead) waits for the booking there, with a time, as before.
    const plain = await viewOf(oneHost.id);
    expect(plain.waitingBecause?.kind).not.toBe("host_offline");
    expect(plain.estimatedStartAt).toBe(new Date(NOW.getTime() + 30 * 60_000).toISOString());
  });
});
