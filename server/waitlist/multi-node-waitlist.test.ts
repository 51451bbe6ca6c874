import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * A request across nodes in the queue, on SQLite and PostgreSQL: it waits
 * in fair-share order beside requests of one host, is granted whole (every
 * part in one transaction) or not at all, and the queue says what it
 * needs at once.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
let multiNodeWait: typeof import("@/server/waitlist/join-waitlist").multiNodeWait;
let grantWaiting: typeof import("@/server/waitlist/grant-waiting").grantWaiting;
let listWaitlist: typeof import("@/server/waitlist/list-waitlist").listWaitlist;
let releaseBooking: typeof import("@/server/bookings/commands/end-booking").releaseBooking;
let saveLimits: typeof import("@/server/bookings/rules/limits-store").saveLimits;
let personSubject: typeof import("@/server/bookings/rules/limits-store").personSubject;
let db: typeof import("@/server/core/db").db;
let fx: Fixtures;

const NOW = new Date("2026-12-01T10:00:00Z");
const later = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ joinWaitlist, multiNodeWait } = await import("@/server/waitlist/join-waitlist"));
  ({ grantWaiting } = await import("@/server/waitlist/grant-waiting"));
  ({ listWaitlist } = await import("@/server/waitlist/list-waitlist"));
  ({ releaseBooking } = await import("@/server/bookings/commands/end-booking"));
  ({ saveLimits, personSubject } = await import("@/server/bookings/rules/limits-store"));
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
}, 120_000);

// The grant serves the whole queue: each test starts from an empty one.
beforeEach(async () => {
  await db().waitlistEntry.updateMany({ where: { status: "waiting" }, data: { status: "left" } });
});

/** The parts (host names, rank order) a person holds at `at`. */
async function partsHeld(userId: string, at: Date): Promise<{ host: string; rank: number | null; gpus: number }[]> {
  const rows = await db().reservation.findMany({
    where: { userId, status: { in: ["booked", "active"] }, startsAt: { lte: at }, endsAt: { gt: at } },
    orderBy: { nodeRank: "asc" },
    select: { nodeRank: true, host: { select: { name: true } }, _count: { select: { gpus: true } } },
  });
  return rows.map((row) => ({ host: row.host.name, rank: row.nodeRank, gpus: row._count.gpus }));
}

describe("a request across nodes in the queue", () => {
  it("waits beside two others, says what it needs at once, and is granted whole when a node frees up", async () => {
    const { model, names } = await fx.createModelFleet(3, 4);
    const [bookedBy, alice, bob, carol] = await Promise.all([fx.createTestUser(), fx.createTestUser(), fx.createTestUser(), fx.createTestUser()]);
    const first = await createBooking(bookedBy, { host: names[0], count: 4, durationMinutes: 60, purpose: "holds a" }, { now: NOW });
    await createBooking(bookedBy, { host: names[1], count: 4, durationMinutes: 120, purpose: "holds b" }, { now: NOW });

    const wait = (who: typeof alice, minute: number) => joinWaitlist(who, multiNodeWait({ nodes: 2, gpusPerNode: 4, model, durationMinutes: 180, purpose: "pretrain" }), { now: later(minute) });
    const aliceWaits = await wait(alice, 1);
    const bobWaits = await wait(bob, 2);
    const carolWaits = await joinWaitlist(carol, { count: 2, host: names[2], durationMinutes: 30, purpose: "eval" }, { now: later(3) });
    expect([aliceWaits.position, bobWaits.position, carolWaits.position]).toEqual([1, 2, 3]);

    // One node free (c): nothing is booked, and Carol's GPUs on c stay for Alice, who is served first and needs c.
    expect(await grantWaiting({ now: later(10) })).toEqual([]);
    expect(await partsHeld(alice.id, later(10))).toEqual([]);
    expect(await partsHeld(carol.id, later(10))).toEqual([]);

    const queue = await listWaitlist(later(10));
    expect(queue.map((entry) => entry.id)).toEqual([aliceWaits.id, bobWaits.id, carolWaits.id]);
    const alices = queue[0]!;
    // One request on /queue, named as the booking it becomes.
    expect(alices).toMatchObject({ count: 8, host: null, multiNode: { nodes: 2, gpusPerNode: 4, model, label: `2 × 4 ${model}` } });
    expect(alices.waitingBecause?.kind).toBe("held");
    expect(alices.waitingBecause?.message).toMatch(new RegExp(`^GPUs held: .*; needs 2 hosts with 4 free ${model} each: 1 has them now \\(${names[2]}\\)$`));
    expect(alices.waitingBecause?.message).toContain(`holds ${names[0]} GPU 0–3 until 2026-12-01 11:00 UTC`);
    // Node a frees at 11:00: Alice's estimate; Bob needs two more nodes after hers, Carol's host is Alice's or Bob's.
    expect(alices.estimatedStartAt).toBe(later(60).toISOString());
    expect(Date.parse(queue[1]!.estimatedStartAt ?? "")).toBeGreaterThan(later(60).getTime());
    expect(queue[1]!.waitingBecause?.kind).toBe("queue");

    // Node a is released early: Alice gets a and c whole, in one grant; Bob and Carol keep waiting.
    await releaseBooking(bookedBy, first.id, { now: later(20) });
    const grants = await grantWaiting({ now: later(21) });
    expect(grants.map((grant) => grant.entryId)).toEqual([aliceWaits.id]);
    expect(grants[0]).toMatchObject({ units: `2 × 4 ${model}`, hostName: `${names[0]} and ${names[2]}` });
    expect(await partsHeld(alice.id, later(21))).toEqual([
      { host: names[0], rank: 0, gpus: 4 },
      { host: names[2], rank: 1, gpus: 4 },
    ]);
    const entry = await db().waitlistEntry.findUniqueOrThrow({ where: { id: aliceWaits.id }, select: { status: true, reservationId: true } });
    expect(entry).toEqual({ status: "granted", reservationId: grants[0]!.reservationId });
    expect((await listWaitlist(later(21))).map((waiting) => waiting.id)).toEqual([bobWaits.id, carolWaits.id]);
  });

  it("leaves nothing half-booked when a limit refuses the grant, and keeps the request waiting with that reason", async () => {
    const { model, names } = await fx.createModelFleet(3, 4);
    const [bookedBy, dana] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    await db().$transaction((tx) => saveLimits(tx, personSubject(dana.id), { maxGpus: 8 }));
    await createBooking(dana, { host: names[2], count: 4, durationMinutes: 240, purpose: "own work" }, { now: NOW });
    const held = await createBooking(bookedBy, { host: names[0], count: 4, durationMinutes: 60, purpose: "holds a" }, { now: NOW });
    const waits = await joinWaitlist(dana, multiNodeWait({ nodes: 2, gpusPerNode: 4, model, durationMinutes: 60, purpose: "needs a and b" }), { now: NOW });

    await releaseBooking(bookedBy, held.id, { now: later(5) });
    // a and b are free, but 4 held + 8 asked is over her 8: neither part is made.
    expect(await grantWaiting({ now: later(6) })).toEqual([]);
    expect(await partsHeld(dana.id, later(6))).toEqual([{ host: names[2], rank: null, gpus: 4 }]);
    const [queued] = await listWaitlist(later(6));
    expect(queued).toMatchObject({ id: waits.id, status: "waiting", waitingBecause: { kind: "limit", limit: "maxGpus" } });
  });

  it("grants named parts whole once both hosts are free, not one part before", async () => {
    const { names } = await fx.createModelFleet(2, 2);
    const [bookedBy, erin] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    await createBooking(bookedBy, { host: names[1], count: 2, durationMinutes: 30, purpose: "holds b" }, { now: NOW });
    const waits = await joinWaitlist(erin, multiNodeWait({ parts: [{ host: names[0], gpus: [0, 1] }, { host: names[1], gpus: 2 }], durationMinutes: 60, purpose: "both" }), { now: NOW });
    const [queued] = await listWaitlist(later(1));
    expect(queued?.multiNode?.label).toMatch(new RegExp(`^2 × 2 \\(${names[0]}, ${names[1]}\\)$`));
    expect(queued?.waitingBecause?.message).toMatch(new RegExp(`^GPUs held: .*; needs ${names[0]} and ${names[1]} at once: ${names[0]} is free now$`));
    expect(queued?.estimatedStartAt).toBe(later(30).toISOString());

    expect(await grantWaiting({ now: later(10) })).toEqual([]);
    expect(await partsHeld(erin.id, later(10))).toEqual([]);
    const grants = await grantWaiting({ now: later(30) });
    expect(grants.map((grant) => grant.entryId)).toEqual([waits.id]);
    expect(await partsHeld(erin.id, later(30))).toEqual([
      { host: names[0], rank: 0, gpus: 2 },
      { host: names[1], rank: 1, gpus: 2 },
    ]);
  });

  it("refuses at once a request across nodes no fleet could ever hold, a part on a host that does not exist, and GPUs a host does not have", async () => {
    const { model, names } = await fx.createModelFleet(2, 4);
    const frank = await fx.createTestUser();
    const tooMany = await fx.refusal(joinWaitlist(frank, multiNodeWait({ nodes: 3, gpusPerNode: 4, model, durationMinutes: 60, purpose: "three" }), { now: NOW }));
    expect(tooMany.message).toBe(`Only 2 hosts have 4 ${model} GPUs; 3 nodes asked for, so it would wait forever`);
    const tooBig = await fx.refusal(joinWaitlist(frank, multiNodeWait({ parts: [{ host: names[0], gpus: 8 }, { host: names[1], gpus: 1 }], durationMinutes: 60, purpose: "big" }), { now: NOW }));
    expect(tooBig.message).toBe(`${names[0]} does not have 8 GPUs`);
    const missing = await fx.refusal(joinWaitlist(frank, multiNodeWait({ parts: [{ host: names[0], gpus: 1 }, { host: "no-such-node", gpus: 1 }], durationMinutes: 60, purpose: "ghost" }), { now: NOW }));
    expect(missing.message).toBe("There is no host named no-such-node");
    // GPUs named by index that the host does not have would wait until the request expires (issue 48, item 9).
    const noGpu = await fx.refusal(joinWaitlist(frank, multiNodeWait({ parts: [{ host: names[0], gpus: [99] }, { host: names[1], gpus: [0, 4] }], durationMinutes: 60, purpose: "ghost GPUs" }), { now: NOW }));
    expect({ code: noGpu.code, message: noGpu.message, fields: noGpu.fields }).toEqual({
      code: "bad_request",
      message: `${names[0]} has no GPU 99 (its GPUs: 0, 1, 2, 3)`,
      fields: { parts: `${names[0]} has no GPU 99 (its GPUs: 0, 1, 2, 3)` },
    });
    const secondPart = await fx.refusal(joinWaitlist(frank, multiNodeWait({ parts: [{ host: names[0], gpus: [3] }, { host: names[1], gpus: [0, 4] }], durationMinutes: 60, purpose: "ghost GPU" }), { now: NOW }));
    expect(secondPart.message).toBe(`${names[1]} has no GPU 4 (its GPUs: 0, 1, 2, 3)`);
    // 2 × 8 is more than anyone may hold at once (the policy's 8): it could never be granted.
    const { model: big } = await fx.createModelFleet(2, 8);
    const overPolicy = await fx.refusal(joinWaitlist(frank, multiNodeWait({ nodes: 2, gpusPerNode: 8, model: big, durationMinutes: 60, purpose: "sixteen" }), { now: NOW }));
    expect(overPolicy.message).toBe("This request asks for 16 GPUs; a person may hold at most 8 at once, so it would wait forever");
    expect(await db().waitlistEntry.count({ where: { userId: frank.id } })).toBe(0);
  });

  it("passes over a stored request across nodes that no longer reads: the queue still lists it and later requests are served, nothing is booked for it", async () => {
    const host = await fx.createTestHost(1);
    const [gina, hal] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const broken = await db().waitlistEntry.create({
      data: { userId: gina.id, gpuCount: 2, multiNode: '{"nodes":"two"}', durationMinutes: 30, purpose: "broken", createdAt: NOW, expiresAt: later(24 * 60) },
      select: { id: true },
    });
    const fine = await joinWaitlist(hal, { count: 1, host: host.name, durationMinutes: 30, purpose: "fine" }, { now: later(1) });
    const queue = await listWaitlist(later(2));
    expect(queue.find((entry) => entry.id === broken.id)?.multiNode?.label).toBe("This waiting request across nodes no longer reads; leave it and ask again");
    const grants = await grantWaiting({ now: later(2) });
    expect(grants.map((grant) => grant.entryId)).toEqual([fine.id]);
    expect(await db().reservation.count({ where: { userId: gina.id } })).toBe(0);
  });
});
