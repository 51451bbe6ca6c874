import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { isTestFile, sourceFiles } from "@/scripts/import-graph";
import { useTestDatabase } from "@/server/testing/test-db";
import type { BookingsEvent } from "@/server/bookings/store/booking-events";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let events: typeof import("@/server/bookings/store/booking-events");
let commands: {
  create: typeof import("@/server/bookings/commands/create-booking").createBooking;
  createAcross: typeof import("@/server/bookings/commands/create-multi-node").createMultiNodeBooking;
  change: typeof import("@/server/bookings/commands/change-booking").changeBookingEnd;
  release: typeof import("@/server/bookings/commands/end-booking").releaseBooking;
  cancel: typeof import("@/server/bookings/commands/end-booking").cancelBooking;
  keep: typeof import("@/server/bookings/commands/keep-booking").keepBooking;
  replacePart: typeof import("@/server/bookings/commands/replace-part").replacePart;
  warnIdle: typeof import("@/server/bookings/commands/warn-idle-booking").warnIdleBooking;
};
let fx: Fixtures;

const NOW = new Date("2026-12-01T10:00:00Z");
const later = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  events = await import("@/server/bookings/store/booking-events");
  commands = {
    create: (await import("@/server/bookings/commands/create-booking")).createBooking,
    createAcross: (await import("@/server/bookings/commands/create-multi-node")).createMultiNodeBooking,
    change: (await import("@/server/bookings/commands/change-booking")).changeBookingEnd,
    release: (await import("@/server/bookings/commands/end-booking")).releaseBooking,
    cancel: (await import("@/server/bookings/commands/end-booking")).cancelBooking,
    keep: (await import("@/server/bookings/commands/keep-booking")).keepBooking,
    replacePart: (await import("@/server/bookings/commands/replace-part")).replacePart,
    warnIdle: (await import("@/server/bookings/commands/warn-idle-booking")).warnIdleBooking,
  };
  fx = await import("@/server/testing/booking-fixtures");
}, 60_000);

const stops: (() => void)[] = [];
afterEach(() => {
  while (stops.length > 0) stops.pop()!();
});

/** Every announcement on the bookings' channel from now on. */
function heard(): BookingsEvent[] {
  const seen: BookingsEvent[] = [];
  stops.push(events.onBookingsChanged((event) => seen.push(event)));
  return seen;
}

describe("a booking's changes, announced", () => {
  it("once per change, typed: what changed, the booking's ids, who, and the times before and after", async () => {
    const host = await fx.createTestHost(2);
    const person = await fx.createTestUser();
    const admin = await fx.createTestUser("admin");
    const seen = heard();

    const booking = await commands.create(person, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "announced" }, { now: NOW });
    expect(seen).toEqual([
      { kind: "booking", change: expect.objectContaining({ kind: "created", bookingId: booking.id, partIds: [booking.id], by: expect.objectContaining({ id: person.id }), after: { startsAt: NOW, endsAt: later(60) } }) },
    ]);

    // An admin's change of another's booking: one announcement, not one for the feed and another for notifications.
    await commands.change(admin, booking.id, { endsAt: later(30).toISOString(), reason: "the lab closes early" }, { now: NOW });
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual({
      kind: "booking",
      change: { kind: "changed", how: "shortened", bookingId: booking.id, partIds: [booking.id], by: expect.objectContaining({ id: admin.id }), before: { startsAt: NOW, endsAt: later(60) }, after: { startsAt: NOW, endsAt: later(30) } },
    });

    await commands.keep(person, booking.id, { now: later(5) });
    expect(seen[2]).toEqual({ kind: "booking", change: { kind: "kept", bookingId: booking.id, partIds: [booking.id], by: expect.objectContaining({ id: person.id }) } });

    await commands.cancel(admin, booking.id, "maintenance", { now: later(10) });
    expect(seen).toHaveLength(4);
    expect(seen[3]).toEqual({
      kind: "booking",
      change: { kind: "ended", how: "cancelled", bookingId: booking.id, partIds: [booking.id], by: expect.objectContaining({ id: admin.id }), before: { startsAt: NOW, endsAt: later(30) }, after: { startsAt: NOW, endsAt: later(10) } },
    });

    // A refused change announces nothing.
    await fx.refusal(commands.release(person, booking.id, { now: later(11) }));
    expect(seen).toHaveLength(4);
  });

  it("a booking across nodes once, with every part's id; a moved node as its own change", async () => {
    const { names } = await fx.createModelFleet(3, 2);
    const person = await fx.createTestUser();
    const seen = heard();
    const booking = await commands.createAcross(person, { parts: [{ host: names[0], gpus: 2 }, { host: names[1], gpus: 2 }], durationMinutes: 120, purpose: "across" }, { now: NOW });
    const partIds = booking.parts.map((part) => part.id);
    expect(seen).toEqual([{ kind: "booking", change: expect.objectContaining({ kind: "created", bookingId: booking.id, partIds }) }]);

    await commands.replacePart(person, partIds[1], names[2], { now: later(5) });
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual({ kind: "booking", change: expect.objectContaining({ kind: "part-replaced", bookingId: booking.id, partIds, partId: partIds[1] }) });

    await commands.release(person, partIds[1], { now: later(10) });
    expect(seen).toHaveLength(3);
    expect(seen[2]).toEqual({ kind: "booking", change: expect.objectContaining({ kind: "ended", how: "released", bookingId: booking.id, partIds }) });
  });

  it("the idle warning is a command: claimed once per idle run, for every part, announced once, seen by the backends", async () => {
    const backends = await import("@/server/bookings/backends/booking-backend");
    const { db } = await import("@/server/core/db");
    const { names } = await fx.createModelFleet(2, 1);
    const person = await fx.createTestUser();
    const booking = await commands.createAcross(person, { parts: [{ host: names[0], gpus: 1 }, { host: names[1], gpus: 1 }], durationMinutes: 120, purpose: "idle" }, { now: NOW });
    const partIds = booking.parts.map((part) => part.id);
    const inside: string[] = [];
    stops.push(backends.registerBookingBackend({ name: "recorder", beforeCommit: async (change) => void inside.push(change.kind) }));
    const seen = heard();

    const idleSince = later(10);
    expect(await commands.warnIdle(partIds[1], idleSince, { now: later(40) })).toBe(true);
    // Another instance's pass, or the next one, in the same idle run: no second warning, no announcement.
    expect(await commands.warnIdle(booking.id, idleSince, { now: later(41) })).toBe(false);
    expect(seen).toEqual([{ kind: "booking", change: { kind: "idle-warned", bookingId: booking.id, partIds, by: null, idleSince, at: later(40) } }]);
    expect(inside).toEqual(["idle-warned"]);
    const warned = await db().reservation.findMany({ where: { id: { in: partIds } }, select: { idleWarnedAt: true } });
    expect(warned.map((row) => row.idleWarnedAt)).toEqual([later(40), later(40)]);
    // A later idle run is warned again.
    expect(await commands.warnIdle(booking.id, later(60), { now: later(90) })).toBe(true);
    expect(seen).toHaveLength(2);
  });

  it("by the booking transaction alone: no other code announces a booking's change", () => {
    const root = fileURLToPath(new URL("../../..", import.meta.url));
    const announcers = sourceFiles(root, ["app", "server", "lib"]).filter((file) => !isTestFile(file) && /\bannounceBookingChange\(/.test(readFileSync(`${root}/${file}`, "utf8")));
    expect(announcers).toEqual(["server/bookings/store/booking-transaction.ts"]);
  });
});
