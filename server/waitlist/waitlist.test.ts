import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createReservation: typeof import("@/server/reservations/create-reservation").createReservation;
let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
let grantWaiting: typeof import("@/server/waitlist/grant-waiting").grantWaiting;
let createTestUser: Fixtures["createTestUser"];
let createTestHost: Fixtures["createTestHost"];
let refusal: Fixtures["refusal"];

const NOW = new Date("2026-12-01T10:00:00Z");
const later = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

// Migrating a fresh database spawns Prisma's CLI: slow on a busy machine.
beforeAll(async () => {
  await useTestDatabase();
  ({ createReservation } = await import("@/server/reservations/create-reservation"));
  ({ joinWaitlist } = await import("@/server/waitlist/join-waitlist"));
  ({ grantWaiting } = await import("@/server/waitlist/grant-waiting"));
  ({ createTestUser, createTestHost, refusal } = await import("@/server/testing/booking-fixtures"));
}, 120_000);

describe("the waitlist", () => {
  it("grants three waiting requests from two people in order of arrival as bookings end", async () => {
    const host = await createTestHost(2);
    const [holder, alice, bob] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
    await createReservation(holder, { host: host.name, gpus: [0], durationMinutes: 30, purpose: "first" }, { now: NOW });
    await createReservation(holder, { host: host.name, gpus: [1], durationMinutes: 60, purpose: "second" }, { now: NOW });

    const wait = (who: typeof alice, minute: number) =>
      joinWaitlist(who, { count: 1, host: host.name, durationMinutes: 60, purpose: "queued" }, { now: later(minute) });
    const first = await wait(alice, 1);
    const second = await wait(bob, 2);
    const third = await wait(alice, 3);
    expect([first.position, second.position, third.position]).toEqual([1, 2, 3]);

    expect(await grantWaiting({ now: later(10) })).toEqual([]);
    const at30 = await grantWaiting({ now: later(30) });
    expect(at30.map((grant) => grant.entryId)).toEqual([first.id]);
    const at60 = await grantWaiting({ now: later(60) });
    expect(at60.map((grant) => grant.entryId)).toEqual([second.id]);
    // Alice's first grant ends at 90, freeing GPU 0 for her second request.
    expect(await grantWaiting({ now: later(75) })).toEqual([]);
    const at90 = await grantWaiting({ now: later(90) });
    expect(at90.map((grant) => [grant.entryId, grant.userId])).toEqual([[third.id, alice.id]]);
  });

  it("caps the waiting requests of one person", async () => {
    const host = await createTestHost(1);
    const carol = await createTestUser();
    const request = { count: 1, host: host.name, durationMinutes: 30, purpose: "queued" };
    await joinWaitlist(carol, request, { now: NOW });
    await joinWaitlist(carol, request, { now: NOW });
    const refused = await refusal(joinWaitlist(carol, request, { now: NOW }));
    expect(refused.message).toContain("at most 2 per person");
  });
});
