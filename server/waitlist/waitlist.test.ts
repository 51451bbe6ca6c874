import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
let grantWaiting: typeof import("@/server/waitlist/grant-waiting").grantWaiting;
let announceGrants: typeof import("@/server/waitlist/grant-notices").announceGrants;
let onWaitlistGranted: typeof import("@/server/waitlist/grant-notices").onWaitlistGranted;
let listWaitlist: typeof import("@/server/waitlist/list-waitlist").listWaitlist;
let listMyWaitlist: typeof import("@/server/waitlist/list-waitlist").listMyWaitlist;
let db: typeof import("@/server/core/db").db;
let createTestUser: Fixtures["createTestUser"];
let createTestHost: Fixtures["createTestHost"];
let refusal: Fixtures["refusal"];

const NOW = new Date("2026-12-01T10:00:00Z");
const later = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

// Migrating a fresh database spawns Prisma's CLI: slow on a busy machine.
beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ joinWaitlist } = await import("@/server/waitlist/join-waitlist"));
  ({ grantWaiting } = await import("@/server/waitlist/grant-waiting"));
  ({ announceGrants, onWaitlistGranted } = await import("@/server/waitlist/grant-notices"));
  ({ listWaitlist, listMyWaitlist } = await import("@/server/waitlist/list-waitlist"));
  ({ db } = await import("@/server/core/db"));
  ({ createTestUser, createTestHost, refusal } = await import("@/server/testing/booking-fixtures"));
}, 120_000);

describe("the waitlist", () => {
  it("grants three waiting requests from two people in order of arrival as bookings end", async () => {
    const host = await createTestHost(2);
    const [bookedBy, alice, bob] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
    await createBooking(bookedBy, { host: host.name, gpus: [0], durationMinutes: 30, purpose: "first" }, { now: NOW });
    await createBooking(bookedBy, { host: host.name, gpus: [1], durationMinutes: 60, purpose: "second" }, { now: NOW });

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

  it("puts an admin's removal of someone else's waiting request on the record, as the admin's", async () => {
    const { leaveWaitlist } = await import("@/server/waitlist/list-waitlist");
    const host = await createTestHost(1);
    const [bookedBy, waiter, boss] = await Promise.all([createTestUser(), createTestUser(), createTestUser("admin")]);
    await createBooking(bookedBy, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "busy" }, { now: NOW });
    const entry = await joinWaitlist(waiter, { count: 1, host: host.name, durationMinutes: 30, purpose: "queued" }, { now: NOW });
    expect((await leaveWaitlist(boss, entry.id)).status).toBe("left");
    const record = await db().auditLog.findFirst({ where: { action: "waitlist.leave", entityId: entry.id }, select: { actorId: true, before: true, after: true } });
    expect(record).toMatchObject({ actorId: boss.id });
    expect(JSON.parse(record?.before ?? "{}")).toMatchObject({ userId: waiter.id, status: "waiting" });
    expect(JSON.parse(record?.after ?? "{}")).toMatchObject({ status: "left", byOwner: false });
    // Withdrawing it again changes nothing and records nothing.
    await leaveWaitlist(boss, entry.id);
    expect(await db().auditLog.count({ where: { action: "waitlist.leave", entityId: entry.id } })).toBe(1);
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

  it("shows each waiting request's place and estimated start from the bookings' end times", async () => {
    const host = await createTestHost(1);
    const [bookedBy, dave, erin] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
    await createBooking(bookedBy, { host: host.name, gpus: [0], durationMinutes: 45, purpose: "holds it" }, { now: NOW });
    const first = await joinWaitlist(dave, { count: 1, host: host.name, durationMinutes: 30, purpose: "queued" }, { now: later(1) });
    const second = await joinWaitlist(erin, { count: 1, host: host.name, durationMinutes: 30, purpose: "queued" }, { now: later(2) });
    const queue = (await listWaitlist(later(5))).filter((entry) => entry.host === host.name);
    expect(queue.map((entry) => [entry.id, entry.estimatedStartAt])).toEqual([
      [first.id, later(45).toISOString()],
      [second.id, later(75).toISOString()],
    ]);
    // Named as every page names people: the display name rides with the username.
    expect(queue.map((entry) => entry.bookedBy)).toEqual([
      { id: dave.id, username: dave.username, name: dave.name },
      { id: erin.id, username: erin.username, name: erin.name },
    ]);
    const mine = await listMyWaitlist(erin, later(5));
    expect(mine.map((entry) => entry.id)).toEqual([second.id]);
    expect(mine[0].position).toBeGreaterThan(queue.findIndex((entry) => entry.id === first.id) + 1);
  });

  it("refuses to queue a request no host is big enough for", async () => {
    const host = await createTestHost(2);
    const frank = await createTestUser();
    const refused = await refusal(joinWaitlist(frank, { count: 3, host: host.name, durationMinutes: 30, purpose: "too big" }, { now: NOW }));
    expect(refused.fields).toEqual({ count: `${host.name} does not have 3 GPUs` });
  });

  it("tells the person at once: live listeners and their personal webhook", async () => {
    const host = await createTestHost(1);
    const [bookedBy, gina] = await Promise.all([createTestUser(), createTestUser()]);
    const webhook = await db().webhook.create({ data: { url: "http://127.0.0.1:9/hook", format: "slack", userId: gina.id }, select: { id: true } });
    const held = await createBooking(bookedBy, { host: host.name, gpus: [0], durationMinutes: 20, purpose: "holds it" }, { now: NOW });
    const entry = await joinWaitlist(gina, { count: 1, host: host.name, durationMinutes: 30, purpose: "eval run" }, { now: later(1) });

    const heard: string[] = [];
    const stop = onWaitlistGranted((notice) => heard.push(`${notice.userId}:${notice.hostName}:${notice.gpuIndices.join(",")}`));
    const grants = (await grantWaiting({ now: new Date(held.endsAt) })).filter((grant) => grant.entryId === entry.id);
    await announceGrants(grants, { publicUrl: "https://gpudesk.example" });
    stop();

    expect(heard).toEqual([`${gina.id}:${host.name}:0`]);
    const deliveries = await db().webhookDelivery.findMany({ where: { webhookId: webhook.id }, select: { event: true, payload: true } });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0].event).toBe("waitlist.granted");
    const text = (JSON.parse(deliveries[0].payload) as { text: string }).text;
    expect(text).toContain(`"eval run" is now a reservation: GPU 0 on ${host.name}`);
    expect(text).toContain("<https://gpudesk.example/reservations|launch settings>");
    const mine = await listMyWaitlist(gina, new Date(held.endsAt));
    expect(mine.find((row) => row.id === entry.id)).toMatchObject({ status: "granted", reservationId: grants[0].reservationId, position: null });
  });
});
