import { Prisma, type PrismaClient } from "@prisma/client";
import { beforeAll, describe, expect, it } from "vitest";
import type { BookingView } from "@/lib/domain/booking-types";
import { rangesOverlap } from "@/lib/domain/booking-state";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Races beyond two creates for one GPU, on SQLite and PostgreSQL: an
 * extension against a create, one person's "GPUs at once" limit under
 * simultaneous requests, a waitlist grant against a direct booking, and the
 * booking transaction's retry after the database answered "busy".
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let changeBookingEnd: typeof import("@/server/bookings/commands/change-booking").changeBookingEnd;
let grantWaiting: typeof import("@/server/waitlist/grant-waiting").grantWaiting;
let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
let db: typeof import("@/server/core/db").db;
let fx: Fixtures;

const NOW = new Date("2026-12-01T10:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ changeBookingEnd } = await import("@/server/bookings/commands/change-booking"));
  ({ grantWaiting } = await import("@/server/waitlist/grant-waiting"));
  ({ joinWaitlist } = await import("@/server/waitlist/join-waitlist"));
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
}, 120_000);

type Outcome<T> = { ok: true; value: T } | { ok: false; code: string; message: string };

function settle<T>(promise: Promise<T>): Promise<Outcome<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: { code?: string; message?: string }) => ({ ok: false as const, code: error.code ?? "unexpected", message: String(error.message) }),
  );
}

/** Pairs of booked (not released or cancelled) rows of one GPU that share an instant: must be none. */
async function overlapsOnHost(hostId: string): Promise<string[]> {
  const rows = await db().reservationGpu.findMany({
    where: { gpu: { hostId }, reservation: { status: "booked" } },
    select: { gpuId: true, reservationId: true, startsAt: true, endsAt: true },
  });
  const found: string[] = [];
  for (const a of rows) {
    for (const b of rows) {
      if (a.reservationId < b.reservationId && a.gpuId === b.gpuId && rangesOverlap(a.startsAt.getTime(), a.endsAt.getTime(), b.startsAt.getTime(), b.endsAt.getTime())) {
        found.push(`${a.reservationId} and ${b.reservationId}`);
      }
    }
  }
  return found;
}

describe("booking races", () => {
  it("an extension racing a create for the time after it: exactly one gets the GPU, in every round", async () => {
    for (let round = 0; round < 6; round += 1) {
      const host = await fx.createTestHost(1);
      const [bookedBy, newcomer] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
      const held = await createBooking(bookedBy, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "held" }, { now: NOW });
      const [extension, creation] = await Promise.all([
        settle(changeBookingEnd(bookedBy, held.id, { addMinutes: 30 }, { now: at(1) })),
        settle(createBooking(newcomer, { host: host.name, gpus: [0], startsAt: at(60).toISOString(), durationMinutes: 60, purpose: "next" }, { now: at(1) })),
      ]);
      expect([extension.ok, creation.ok].filter(Boolean), JSON.stringify({ extension, creation })).toHaveLength(1);
      for (const outcome of [extension, creation]) if (!outcome.ok) expect(outcome.code).toBe("conflict");
      expect(await overlapsOnHost(host.id)).toEqual([]);
    }
  });

  it("one person's 'GPUs at once' limit holds under simultaneous requests on two hosts", async () => {
    await db().policy.upsert({ where: { id: "default" }, create: { id: "default", maxGpusPerUser: 3 }, update: { maxGpusPerUser: 3 } });
    try {
      const [a, b] = await Promise.all([fx.createTestHost(4), fx.createTestHost(4)]);
      const person = await fx.createTestUser();
      const requests = [0, 1, 2, 3].flatMap((gpu) => [a, b].map((host) => ({ host: host.name, gpus: [gpu], durationMinutes: 60, purpose: `limit ${host.name} ${gpu}` })));
      const outcomes = await Promise.all(requests.map((request) => settle(createBooking(person, request, { now: NOW }))));

      expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(3);
      for (const outcome of outcomes) {
        if (!outcome.ok) expect(outcome).toMatchObject({ code: "bad_request", message: "You would hold 4 GPUs at once; the limit is 3 per person" });
      }
      const held = await db().reservationGpu.count({ where: { reservation: { userId: person.id, status: "booked" } } });
      expect(held).toBe(3);
    } finally {
      await db().policy.update({ where: { id: "default" }, data: { maxGpusPerUser: 8 } });
    }
  });

  it("a waitlist grant racing a direct booking of the freed GPU: one of them gets it, and a lost grant keeps its place", async () => {
    for (let round = 0; round < 6; round += 1) {
      const host = await fx.createTestHost(1);
      const [bookedBy, waiter, walkIn] = await Promise.all([fx.createTestUser(), fx.createTestUser(), fx.createTestUser()]);
      const held = await createBooking(bookedBy, { host: host.name, gpus: [0], durationMinutes: 30, purpose: "held" }, { now: NOW });
      const entry = await joinWaitlist(waiter, { count: 1, host: host.name, durationMinutes: 30, purpose: "queued" }, { now: at(1) });
      const freed = new Date(held.endsAt);
      const [grants, direct] = await Promise.all([
        settle(grantWaiting({ now: freed })),
        settle(createBooking(walkIn, { host: host.name, gpus: [0], durationMinutes: 30, purpose: "walk-in" }, { now: freed })),
      ]);
      expect(grants.ok).toBe(true);
      const granted = grants.ok ? grants.value.filter((grant) => grant.entryId === entry.id) : [];
      expect(granted.length + (direct.ok ? 1 : 0), JSON.stringify({ granted, direct })).toBe(1);
      if (!direct.ok) expect(direct.code).toBe("conflict");
      const row = await db().waitlistEntry.findUniqueOrThrow({ where: { id: entry.id }, select: { status: true, reservationId: true } });
      // The grant that lost the GPU left the request waiting, with no half-made booking.
      expect(row).toEqual(granted.length === 1 ? { status: "granted", reservationId: granted[0].reservationId } : { status: "waiting", reservationId: null });
      expect(await overlapsOnHost(host.id)).toEqual([]);
    }
  });

  it("runs a booking again after the database answered busy, books it once, and gives up after five tries", async () => {
    const host = await fx.createTestHost(2);
    const person = await fx.createTestUser();
    const busy = () => new Prisma.PrismaClientKnownRequestError("Transaction failed due to a write conflict or a deadlock", { code: "P2034", clientVersion: Prisma.prismaVersion.client });
    /** The real client, whose first `failures` transactions fail as a busy database's would. */
    const busyFor = (failures: number) => {
      const client = db();
      let left = failures;
      let tries = 0;
      const proxy = new Proxy(client, {
        get(target, property) {
          if (property === "$transaction") {
            return (...args: Parameters<PrismaClient["$transaction"]>) => {
              tries += 1;
              if (left > 0) {
                left -= 1;
                return Promise.reject(busy());
              }
              return (target.$transaction as (...a: unknown[]) => Promise<unknown>)(...args);
            };
          }
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      return { client: proxy as PrismaClient, tries: () => tries };
    };

    const twice = busyFor(2);
    const booked: BookingView = await createBooking(person, { host: host.name, gpus: [0], durationMinutes: 30, purpose: "after retries" }, { now: NOW, client: twice.client });
    expect(twice.tries()).toBe(3);
    expect(await db().reservation.count({ where: { hostId: host.id } })).toBe(1);
    expect(booked.gpus.map((gpu) => gpu.index)).toEqual([0]);

    const always = busyFor(100);
    const failed = await settle(createBooking(person, { host: host.name, gpus: [1], durationMinutes: 30, purpose: "never" }, { now: NOW, client: always.client }));
    expect(failed.ok).toBe(false);
    expect(always.tries()).toBe(5);
    expect(await db().reservation.count({ where: { hostId: host.id } })).toBe(1);
  });
});
