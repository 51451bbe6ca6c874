import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Moving a node of a booking across nodes, on SQLite and PostgreSQL: what
 * the node held before the move stays booked (usage, the GPU-hour limit),
 * and moves of one booking's nodes that race leave exactly one winner.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createMultiNodeBooking: typeof import("@/server/bookings/commands/create-multi-node").createMultiNodeBooking;
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let replacePart: typeof import("@/server/bookings/commands/replace-part").replacePart;
let getRoom: typeof import("@/server/bookings/rules/room").getRoom;
let saveLimits: typeof import("@/server/bookings/rules/limits-store").saveLimits;
let personSubject: typeof import("@/server/bookings/rules/limits-store").personSubject;
let bookedRangesBy: typeof import("@/server/bookings/rules/booked-ranges").bookedRangesBy;
let db: typeof import("@/server/core/db").db;
let fx: Fixtures;

const NOW = new Date("2026-12-01T10:00:00Z");
const HOUR = 3_600_000;
const at = (hours: number) => new Date(NOW.getTime() + hours * HOUR);

beforeAll(async () => {
  await useTestDatabase();
  ({ createMultiNodeBooking } = await import("@/server/bookings/commands/create-multi-node"));
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ replacePart } = await import("@/server/bookings/commands/replace-part"));
  ({ getRoom } = await import("@/server/bookings/rules/room"));
  ({ saveLimits, personSubject } = await import("@/server/bookings/rules/limits-store"));
  ({ bookedRangesBy } = await import("@/server/bookings/rules/booked-ranges"));
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
}, 120_000);

type Outcome = { ok: true } | { ok: false; code: string; message: string };

const settle = (promise: Promise<unknown>): Promise<Outcome> =>
  promise.then(
    () => ({ ok: true as const }),
    (error: { code?: string; message?: string }) => ({ ok: false as const, code: error.code ?? "unexpected", message: String(error.message) }),
  );

/** GPU-hours booked on each host of `names` in [from, to), by the usage report's grouping. */
async function bookedHoursByHost(names: string[], from: Date, to: Date): Promise<Record<string, number>> {
  const hosts = await db().host.findMany({ where: { name: { in: names } }, select: { id: true, name: true } });
  const byHost = await bookedRangesBy(db(), "hostId", from.getTime(), to.getTime());
  const hours: Record<string, number> = {};
  for (const host of hosts) {
    const ranges = byHost.get(host.id) ?? [];
    const sum = ranges.reduce((total, range) => total + ((Math.min(range.endMs, to.getTime()) - Math.max(range.startMs, from.getTime())) / HOUR) * range.gpus, 0);
    hours[host.name] = Math.round(sum * 10) / 10;
  }
  return hours;
}

describe("moving a node of a booking across nodes", () => {
  it("keeps the hours held before the move: GPU-hours in 7 days and usage per host are the same after moving each node, away and back", async () => {
    const { names } = await fx.createModelFleet(4, 1);
    const person = await fx.createTestUser();
    await db().$transaction((tx) => saveLimits(tx, personSubject(person.id), { gpuHoursPer7Days: 1000 }));
    // 2 × 1 across nodes, booked two days ago for three days.
    const booking = await createMultiNodeBooking(person, { parts: [{ host: names[0], gpus: 1 }, { host: names[1], gpus: 1 }], durationMinutes: 72 * 60, purpose: "ddp" }, { now: at(-48) });
    const check = at(3);
    const before = (await getRoom(person, undefined, check)).gpuHours7Days;
    expect(before?.used).toBeGreaterThan(90);
    const usageBefore = await bookedHoursByHost(names, at(-48), at(3));
    expect(usageBefore).toEqual({ [names[0]]: 51, [names[1]]: 51, [names[2]]: 0, [names[3]]: 0 });

    // Node 2 away to c and back to b an hour later; node 1 to d.
    const away = await replacePart(person, booking.parts[1].id, names[2], { now: NOW });
    expect(away.parts[1].host.name).toBe(names[2]);
    expect(away.parts[1].gpus.map((gpu) => gpu.index)).toEqual([0]);
    // What b held is b's until the move, free from it.
    const other = await fx.createTestUser();
    await expect(createBooking(other, { host: names[1], gpus: [0], durationMinutes: 60, purpose: "freed at the move" }, { now: NOW })).resolves.toMatchObject({ host: { name: names[1] } });
    await expect(createBooking(other, { host: names[1], gpus: [0], startsAt: at(-1).toISOString(), durationMinutes: 30, purpose: "held before the move" }, { now: at(-1) })).rejects.toMatchObject({ code: "conflict" });
    const back = await replacePart(person, booking.parts[1].id, names[1], { now: at(2) });
    expect(back.parts[1].host.name).toBe(names[1]);
    await replacePart(person, booking.parts[0].id, names[3], { now: at(2) });

    expect((await getRoom(person, undefined, check)).gpuHours7Days).toEqual(before);
    // Each host's hours up to +3 h: a 50 h, then d; b 48 h, c 2 h, b again 1 h (and the other person's hour on b).
    expect(await bookedHoursByHost(names, at(-48), at(3))).toEqual({ [names[0]]: 50, [names[1]]: 50, [names[2]]: 2, [names[3]]: 1 });
    // One booking still, two nodes, each with its own host's GPUs only.
    const parts = await db().reservation.findMany({ where: { groupId: booking.id }, orderBy: { nodeRank: "asc" }, select: { host: { select: { name: true } }, gpus: { select: { gpu: { select: { host: { select: { name: true } } } } } } } });
    expect(parts.map((part) => [part.host.name, part.gpus.map((unit) => unit.gpu.host.name)])).toEqual([
      [names[3], [names[3]]],
      [names[1], [names[1]]],
    ]);
  });

  it("two moves at once of node 1 and node 2 to one host: one is made, the other refused, never both", async () => {
    const { names } = await fx.createModelFleet(3, 2);
    const person = await fx.createTestUser();
    const booking = await createMultiNodeBooking(person, { parts: [{ host: names[0], gpus: 1 }, { host: names[1], gpus: 1 }], durationMinutes: 120, purpose: "race" }, { now: NOW });
    const outcomes = await Promise.all(booking.parts.map((part) => settle(replacePart(person, part.id, names[2], { now: at(0.5) }))));
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
    expect(outcomes.find((outcome) => !outcome.ok)).toMatchObject({ message: `${names[2]} already holds a node of this booking` });
    const hosts = await db().reservation.findMany({ where: { groupId: booking.id }, select: { hostId: true } });
    expect(new Set(hosts.map((row) => row.hostId)).size).toBe(2);
    expect(await db().auditLog.count({ where: { action: "reservation.replace_part", entityId: booking.id } })).toBe(1);
  });

  it("ten moves at once of one node: one is made, with one audit entry", async () => {
    const { names } = await fx.createModelFleet(3, 8);
    const person = await fx.createTestUser();
    const booking = await createMultiNodeBooking(person, { parts: [{ host: names[0], gpus: 2 }, { host: names[1], gpus: 2 }], durationMinutes: 120, purpose: "race" }, { now: NOW });
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => settle(replacePart(person, booking.parts[1].id, names[2], { now: at(0.5) }))));
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
    expect(await db().auditLog.count({ where: { action: "reservation.replace_part", entityId: booking.id } })).toBe(1);
    // The node holds two GPUs of c, no more.
    const units = await db().reservationGpu.findMany({ where: { reservation: { groupId: booking.id }, gpu: { host: { name: names[2] } } } });
    expect(units).toHaveLength(2);
  });
});
