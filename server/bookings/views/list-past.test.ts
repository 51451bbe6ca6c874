import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let releaseBooking: typeof import("@/server/bookings/commands/end-booking").releaseBooking;
let listBookings: typeof import("@/server/bookings/views/list-bookings").listBookings;
let countPastBookings: typeof import("@/server/bookings/views/list-bookings").countPastBookingsFor;
let createTestUser: Fixtures["createTestUser"];
let createTestHost: Fixtures["createTestHost"];

const NOW = new Date("2026-12-01T10:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ releaseBooking } = await import("@/server/bookings/commands/end-booking"));
  ({ listBookings, countPastBookingsFor: countPastBookings } = await import("@/server/bookings/views/list-bookings"));
  ({ createTestUser, createTestHost } = await import("@/server/testing/booking-fixtures"));
}, 120_000);

describe("past bookings on /reservations", () => {
  it("come a page at a time, newest first, and a filter keeps those whose purpose or host holds the text", async () => {
    const host = await createTestHost(1);
    const person = await createTestUser();
    // Five runs one after another, each released when it ended (what `gpudesk run` leaves behind).
    const ids: string[] = [];
    for (let run = 0; run < 5; run += 1) {
      const booking = await createBooking(person, { host: host.name, gpus: [0], startsAt: at(run * 10).toISOString(), durationMinutes: 60, purpose: run % 2 === 0 ? `train ${run}` : `eval ${run}` }, { now: at(run * 10) });
      await releaseBooking(person, booking.id, { now: at(run * 10 + 5) });
      ids.push(booking.id);
    }
    const later = at(60);
    const first = await listBookings(person, { all: false, state: "past", limit: 2 }, later);
    const second = await listBookings(person, { all: false, state: "past", limit: 2, skip: 2 }, later);
    const third = await listBookings(person, { all: false, state: "past", limit: 2, skip: 4 }, later);
    expect([...first, ...second, ...third].map((booking) => booking.id)).toEqual([...ids].reverse());
    expect(await countPastBookings(person, { all: false }, later)).toBe(5);

    const trains = await listBookings(person, { all: false, state: "past", limit: 10, search: "train" }, later);
    expect(trains.map((booking) => booking.purpose)).toEqual(["train 4", "train 2", "train 0"]);
    expect(await countPastBookings(person, { all: false, search: "train" }, later)).toBe(3);
    expect(await countPastBookings(person, { all: false, search: host.name }, later)).toBe(5);
  });
});
