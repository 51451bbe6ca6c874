import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * listLiveBookings decides which bookings count when the server works out
 * who may be on a GPU (attribution, conflicts, the live feed): on a real
 * database, which are in and which are out.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let listLiveBookings: typeof import("@/server/bookings/views/bookings-query").listLiveBookings;
let activeBookingsByGpu: typeof import("@/server/attribution/reconcile-fleet").activeBookingsByGpu;
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let releaseBooking: typeof import("@/server/bookings/commands/end-booking").releaseBooking;
let cancelBooking: typeof import("@/server/bookings/commands/end-booking").cancelBooking;
let fixtures: Fixtures;

const NOW = new Date("2026-12-01T10:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  ({ listLiveBookings } = await import("@/server/bookings/views/bookings-query"));
  ({ activeBookingsByGpu } = await import("@/server/attribution/reconcile-fleet"));
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ releaseBooking, cancelBooking } = await import("@/server/bookings/commands/end-booking"));
  fixtures = await import("@/server/testing/booking-fixtures");
}, 120_000);

describe("listLiveBookings", () => {
  it("holds the bookings of now and later, soonest first, and none that ended, were released or cancelled", async () => {
    const host = await fixtures.createTestHost(4);
    const [bookedBy, admin] = await Promise.all([fixtures.createTestUser(), fixtures.createTestUser("admin")]);
    const book = (gpus: number[], startMinutes: number, durationMinutes: number, purpose: string) =>
      createBooking(bookedBy, { host: host.name, gpus, startsAt: at(startMinutes).toISOString(), durationMinutes, purpose }, { now: at(startMinutes - 1) });

    const ended = await book([0], -120, 60, "ended an hour ago");
    const endsNow = await book([1], -60, 60, "ends this instant");
    const running = await book([3, 2], -30, 90, "running now");
    const later = await book([0], 60, 30, "later today");
    const released = await book([1], 10, 30, "released before it began");
    await releaseBooking(bookedBy, released.id, { now: at(5) });
    const cancelled = await book([1], 120, 30, "cancelled by an admin");
    await cancelBooking(admin, cancelled.id, "maintenance", { now: at(5) });

    const live = (await listLiveBookings(NOW)).filter((booking) => booking.hostName === host.name);
    expect(live.map((booking) => booking.purpose)).toEqual(["running now", "later today"]);
    const ids = live.map((booking) => booking.reservationId);
    for (const gone of [ended, endsNow, released, cancelled]) expect(ids).not.toContain(gone.id);
    expect(live[0]).toEqual({
      reservationId: running.id,
      hostId: host.id,
      hostName: host.name,
      // In nvidia-smi's order, whatever order they were asked for in.
      gpus: [
        { uuid: host.gpus[2].uuid, index: 2 },
        { uuid: host.gpus[3].uuid, index: 3 },
      ],
      bookedBy: expect.objectContaining({ id: bookedBy.id, username: bookedBy.username }),
      startsAt: at(-30).toISOString(),
      endsAt: at(60).toISOString(),
      purpose: "running now",
    });
    expect(live[1].reservationId).toBe(later.id);

    // What attribution takes from it now: GPUs 2 and 3 are held by the running booking;
    // GPU 0 is not yet (its booking starts in an hour), GPU 1 by nobody.
    const byGpu = activeBookingsByGpu(live, NOW.getTime(), host.gpus);
    expect([...byGpu.entries()].map(([uuid, booking]) => [uuid, booking.reservationId]).sort()).toEqual(
      [
        [host.gpus[2].uuid, running.id],
        [host.gpus[3].uuid, running.id],
      ].sort(),
    );
    expect(activeBookingsByGpu(live, at(60).getTime(), host.gpus).get(host.gpus[0].uuid)?.reservationId).toBe(later.id);
  });
});
