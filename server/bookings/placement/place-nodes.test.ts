import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";
import { chooseNodes } from "@/server/bookings/placement/place-nodes";

/**
 * "Any N nodes" is placed by one rule (chooseNodes), for the grant and for
 * the queue's estimate alike, and packs: parallel requests fit as many as
 * the fleet holds. On SQLite and PostgreSQL.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let createMultiNodeBooking: typeof import("@/server/bookings/commands/create-multi-node").createMultiNodeBooking;
let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
let multiNodeWait: typeof import("@/server/waitlist/join-waitlist").multiNodeWait;
let grantWaiting: typeof import("@/server/waitlist/grant-waiting").grantWaiting;
let listWaitlist: typeof import("@/server/waitlist/list-waitlist").listWaitlist;
let db: typeof import("@/server/core/db").db;
let fx: Fixtures;

const NOW = new Date("2026-12-01T10:00:00Z");
const later = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ createMultiNodeBooking } = await import("@/server/bookings/commands/create-multi-node"));
  ({ joinWaitlist, multiNodeWait } = await import("@/server/waitlist/join-waitlist"));
  ({ grantWaiting } = await import("@/server/waitlist/grant-waiting"));
  ({ listWaitlist } = await import("@/server/waitlist/list-waitlist"));
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
}, 120_000);

// The grant serves the whole queue: each test starts from an empty one.
beforeEach(async () => {
  await db().waitlistEntry.updateMany({ where: { status: "waiting" }, data: { status: "left" } });
});

describe("chooseNodes", () => {
  const host = (name: string, freeUnits: number, fabric: string | null = null) => ({ name, freeUnits, fabric: fabric ? { key: fabric, said: `fabric "${fabric}"` } : null });

  it("puts the nodes where the most room for further nodes is left, the tightest fit among equals", () => {
    const names = (list: ReturnType<typeof host>[]) => chooseNodes(list, 2, 4)?.parts.map((part) => part.name);
    expect(names([host("a", 8), host("b", 8), host("c", 8)])).toEqual(["a", "b"]);
    expect(names([host("a", 4), host("b", 4), host("c", 8)])).toEqual(["c", "a"]);
    expect(names([host("a", 6), host("b", 5), host("c", 4)])).toEqual(["c", "b"]);
    expect(names([host("a", 8)])).toBeUndefined();
  });

  it("keeps the nodes on the smallest fabric that has enough of them", () => {
    const choice = chooseNodes([host("n1", 2, "x"), host("n2", 2, "y"), host("n3", 2, "x"), host("n4", 2, "y"), host("n5", 2, "y")], 2, 2);
    expect(choice).toMatchObject({ fabric: { key: "x" }, smallestOfSeveral: true });
    expect(choice?.parts.map((part) => part.name)).toEqual(["n1", "n3"]);
  });
});

describe("any N nodes", () => {
  it("packs: ten parallel 2 × 4 requests over three free 8-GPU hosts make three bookings, every GPU booked", async () => {
    const { model, names } = await fx.createModelFleet(3, 8);
    const people = await Promise.all(Array.from({ length: 10 }, () => fx.createTestUser()));
    const outcomes = await Promise.allSettled(
      people.map((person) => createMultiNodeBooking(person, { nodes: 2, gpusPerNode: 4, model, durationMinutes: 60, purpose: "ddp" }, { now: NOW })),
    );
    const made = outcomes.filter((outcome) => outcome.status === "fulfilled");
    expect(made).toHaveLength(3);
    for (const outcome of outcomes) if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "conflict" });
    const held = await db().reservationGpu.findMany({ where: { gpu: { host: { name: { in: names } } }, reservation: { status: "booked" } }, select: { gpuId: true } });
    expect(new Set(held.map((row) => row.gpuId)).size).toBe(24);
    // Each host holds two nodes of different bookings.
    const perHost = await db().reservation.groupBy({ by: ["hostId"], where: { host: { name: { in: names } }, status: "booked" }, _count: { _all: true } });
    expect(perHost.map((row) => row._count._all)).toEqual([2, 2, 2]);
  }, 120_000);

  it("the queue's estimate plans the hosts the grant takes, on one of two fabrics", async () => {
    const { model, names } = await fx.createModelFleet(3, 2);
    // n1 and n3 on fabric "x", n2 on "y": first by name (n1, n2) crosses fabrics, the grant keeps to x.
    const hosts = await db().host.findMany({ where: { name: { in: names } }, orderBy: { name: "asc" }, select: { id: true } });
    for (const [at, label] of ["x", "y", "x"].entries()) await db().host.update({ where: { id: hosts[at].id }, data: { fabricLabel: `${label}-${names[0]}` } });
    const [holder, alice, bob] = await Promise.all([fx.createTestUser(), fx.createTestUser(), fx.createTestUser()]);
    for (const name of names) await createBooking(holder, { host: name, count: 2, durationMinutes: 60, purpose: "holds" }, { now: NOW });

    const across = await joinWaitlist(alice, multiNodeWait({ nodes: 2, gpusPerNode: 2, model, durationMinutes: 60, purpose: "pretrain" }), { now: later(1) });
    const onN2 = await joinWaitlist(bob, { count: 2, host: names[1], durationMinutes: 60, purpose: "eval" }, { now: later(2) });
    const queue = await listWaitlist(later(5));
    const estimate = new Map(queue.map((entry) => [entry.id, entry.estimatedStartAt]));
    // Alice's nodes are planned on n1 and n3 (fabric x), as the grant will take them: n2 stays for Bob at 11:00.
    expect(estimate.get(across.id)).toBe(later(60).toISOString());
    expect(estimate.get(onN2.id)).toBe(later(60).toISOString());

    const granted = await grantWaiting({ now: later(60) });
    expect(granted).toHaveLength(2);
    const hostsOf = async (userId: string) =>
      (await db().reservation.findMany({ where: { userId, status: "booked" }, orderBy: { nodeRank: "asc" }, select: { startsAt: true, host: { select: { name: true } } } })).map((row) => [row.host.name, row.startsAt.toISOString()]);
    expect(await hostsOf(alice.id)).toEqual([
      [names[0], later(60).toISOString()],
      [names[2], later(60).toISOString()],
    ]);
    expect(await hostsOf(bob.id)).toEqual([[names[1], later(60).toISOString()]]);
  }, 120_000);
});
