import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";
import type { BookingBackend, BookingChange } from "@/server/bookings/backends/booking-backend";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let backends: typeof import("@/server/bookings/backends/booking-backend");
let create: typeof import("@/server/bookings/commands/create-booking").createBooking;
let createAcross: typeof import("@/server/bookings/commands/create-multi-node").createMultiNodeBooking;
let change: typeof import("@/server/bookings/commands/change-booking").changeBookingEnd;
let release: typeof import("@/server/bookings/commands/end-booking").releaseBooking;
let cancel: typeof import("@/server/bookings/commands/end-booking").cancelBooking;
let replacePart: typeof import("@/server/bookings/commands/replace-part").replacePart;
let db: typeof import("@/server/core/db").db;
let fx: Fixtures;

const NOW = new Date("2026-12-01T10:00:00Z");
const later = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  backends = await import("@/server/bookings/backends/booking-backend");
  ({ createBooking: create } = await import("@/server/bookings/commands/create-booking"));
  ({ createMultiNodeBooking: createAcross } = await import("@/server/bookings/commands/create-multi-node"));
  ({ changeBookingEnd: change } = await import("@/server/bookings/commands/change-booking"));
  ({ releaseBooking: release, cancelBooking: cancel } = await import("@/server/bookings/commands/end-booking"));
  ({ replacePart } = await import("@/server/bookings/commands/replace-part"));
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
}, 60_000);

const unregister: (() => void)[] = [];
afterEach(() => {
  while (unregister.length > 0) unregister.pop()!();
});

/** A backend that notes what it saw, inside the transaction and after the commit, and refuses what `refuse` says. */
function recorder(refuse: (change: BookingChange) => boolean = () => false) {
  const inside: { kind: string; how?: string; rows: number; status: string; endsAt: string; hosts: string[]; units: number[][] }[] = [];
  const after: BookingChange[] = [];
  const backend: BookingBackend = {
    name: "recorder",
    async beforeCommit(change, tx) {
      // What the transaction wrote is visible through it, before the commit.
      const rows = await tx.reservation.count({ where: { OR: [{ id: change.booking.id }, { groupId: change.booking.id }] } });
      inside.push({
        kind: change.kind,
        how: "how" in change ? change.how : undefined,
        rows,
        status: change.booking.status,
        endsAt: change.booking.endsAt.toISOString(),
        hosts: change.booking.parts.map((part) => part.hostName),
        units: change.booking.parts.map((part) => part.units.map((unit) => unit.index)),
      });
      if (refuse(change)) throw new backends.BookingBackendRefusal("recorder", `the recorder holds no ${change.kind} today`);
    },
    afterCommit(change) {
      after.push(change);
    },
  };
  unregister.push(backends.registerBookingBackend(backend));
  return { inside, after };
}

describe("booking backends", () => {
  it("see each change of a one-host booking once, inside its transaction and after the commit", async () => {
    const host = await fx.createTestHost(2);
    const [person, admin] = await Promise.all([fx.createTestUser(), fx.createTestUser("admin")]);
    const seen = recorder();
    const booking = await create(person, { host: host.name, gpus: [1], durationMinutes: 60, purpose: "train" }, { now: NOW });
    await change(person, booking.id, { addMinutes: 30 }, { now: NOW });
    await change(person, booking.id, { addMinutes: -15 }, { now: NOW });
    await release(person, booking.id, { now: later(5) });
    const second = await create(person, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "again" }, { now: later(10) });
    await cancel(admin, second.id, "maintenance", { now: later(11) });

    expect(seen.inside.map(({ kind, how, rows, status, endsAt }) => ({ kind, how, rows, status, endsAt }))).toEqual([
      { kind: "created", how: undefined, rows: 1, status: "booked", endsAt: later(60).toISOString() },
      { kind: "changed", how: "extended", rows: 1, status: "booked", endsAt: later(90).toISOString() },
      { kind: "changed", how: "shortened", rows: 1, status: "booked", endsAt: later(75).toISOString() },
      { kind: "ended", how: "released", rows: 1, status: "released", endsAt: later(5).toISOString() },
      { kind: "created", how: undefined, rows: 1, status: "booked", endsAt: later(70).toISOString() },
      { kind: "ended", how: "cancelled", rows: 1, status: "cancelled", endsAt: later(11).toISOString() },
    ]);
    expect(seen.inside[0]).toMatchObject({ hosts: [host.name], units: [[1]] });
    expect(seen.after.map((change) => change.kind)).toEqual(["created", "changed", "changed", "ended", "created", "ended"]);
    const first = seen.after[0];
    expect(first.booking).toMatchObject({ id: booking.id, bookedById: person.id, bookedByUsername: person.username, purpose: "train", parts: [{ partId: booking.id, hostName: host.name }] });
    expect(seen.after[1]).toMatchObject({ kind: "changed", before: { endsAt: later(60) } });
  });

  it("refuse a booking before it commits: 409 with the backend's code, nothing stored, no audit entry", async () => {
    const host = await fx.createTestHost(2);
    const person = await fx.createTestUser();
    const seen = recorder((change) => change.kind === "created");
    const error = await fx.refusal(create(person, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "refused" }, { now: NOW }));
    expect({ code: error.code, status: error.status, message: error.message }).toEqual({ code: "booking_refused", status: 409, message: "the recorder holds no created today" });
    // The backend saw the row inside the transaction; the rollback took it away.
    expect(seen.inside.map((entry) => entry.rows)).toEqual([1]);
    expect(seen.after).toEqual([]);
    expect(await db().reservation.count({ where: { userId: person.id } })).toBe(0);
    expect(await db().auditLog.count({ where: { actorId: person.id, action: "reservation.create" } })).toBe(0);
  });

  it("refuse a change or an end: the booking stays as it was", async () => {
    const host = await fx.createTestHost(2);
    const person = await fx.createTestUser();
    const booking = await create(person, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "kept" }, { now: NOW });
    recorder((change) => change.kind !== "created");
    expect((await fx.refusal(change(person, booking.id, { addMinutes: 30 }, { now: NOW }))).code).toBe("booking_refused");
    expect((await fx.refusal(release(person, booking.id, { now: later(5) }))).code).toBe("booking_refused");
    const row = await db().reservation.findUniqueOrThrow({ where: { id: booking.id }, select: { status: true, endsAt: true } });
    expect(row).toEqual({ status: "booked", endsAt: later(60) });
    const gpuRows = await db().reservationGpu.findMany({ where: { reservationId: booking.id }, select: { endsAt: true } });
    expect(gpuRows).toEqual([{ endsAt: later(60) }]);
    expect(await db().auditLog.count({ where: { entityId: booking.id, action: { in: ["reservation.extend", "reservation.release"] } } })).toBe(0);
  });

  it("see a booking across nodes as one change with every part, and a moved node as its own change", async () => {
    const { names } = await fx.createModelFleet(3, 2);
    const person = await fx.createTestUser();
    const seen = recorder();
    const booking = await createAcross(person, { parts: [{ host: names[0], gpus: 2 }, { host: names[1], gpus: 2 }], durationMinutes: 120, purpose: "ddp" }, { now: NOW });
    expect(seen.inside).toEqual([expect.objectContaining({ kind: "created", rows: 2, hosts: [names[0], names[1]], units: [[0, 1], [0, 1]] })]);
    await replacePart(person, booking.parts[1].id, names[2], { now: later(10) });
    expect(seen.after.map((change) => change.kind)).toEqual(["created", "part-replaced"]);
    expect(seen.after[1]).toMatchObject({ kind: "part-replaced", partId: booking.parts[1].id, booking: { id: booking.id, parts: [{ hostName: names[0] }, { hostName: names[2] }] } });
    await release(person, booking.id, { now: later(20) });
    expect(seen.after[2]).toMatchObject({ kind: "ended", how: "released", booking: { status: "released", parts: [{}, {}] } });
  });

  it("see a keep as one change of the whole booking, announced once", async () => {
    const { onBookingsChanged } = await import("@/server/bookings/store/booking-events");
    const { keepBooking } = await import("@/server/bookings/commands/keep-booking");
    const { names } = await fx.createModelFleet(2, 2);
    const person = await fx.createTestUser();
    const seen = recorder();
    const booking = await createAcross(person, { parts: [{ host: names[0], gpus: 2 }, { host: names[1], gpus: 2 }], durationMinutes: 120, purpose: "kept whole" }, { now: NOW });
    let heard = 0;
    const stop = onBookingsChanged(() => {
      heard += 1;
    });
    try {
      await keepBooking(person, booking.parts[1].id, { now: later(5) });
    } finally {
      stop();
    }
    expect(heard).toBe(1);
    expect(seen.inside.map((entry) => entry.kind)).toEqual(["created", "kept"]);
    expect(seen.after[1]).toMatchObject({ kind: "kept", booking: { id: booking.id, parts: [{ hostName: names[0] }, { hostName: names[1] }] } });
  });

  it("each change announces \"bookings changed\" once, after its commit; a refused one not at all", async () => {
    const { onBookingsChanged } = await import("@/server/bookings/store/booking-events");
    const host = await fx.createTestHost(2);
    const person = await fx.createTestUser();
    let heard = 0;
    const stop = onBookingsChanged(() => {
      heard += 1;
    });
    try {
      const booking = await create(person, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "heard" }, { now: NOW });
      expect(heard).toBe(1);
      await change(person, booking.id, { addMinutes: 30 }, { now: NOW });
      expect(heard).toBe(2);
      recorder((change) => change.kind === "ended");
      await fx.refusal(release(person, booking.id, { now: later(5) }));
      expect(heard).toBe(2);
    } finally {
      stop();
    }
  });

  it("cost nothing when none is registered: a booking reads nothing for them", async () => {
    expect(backends.bookingBackendsListening()).toBe(false);
    const host = await fx.createTestHost(1);
    const person = await fx.createTestUser();
    await expect(create(person, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "plain" }, { now: NOW })).resolves.toMatchObject({ status: "booked" });
  });
});
