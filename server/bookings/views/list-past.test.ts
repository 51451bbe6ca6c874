import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createReservation: typeof import("@/server/bookings/commands/create-booking").createReservation;
let releaseReservation: typeof import("@/server/bookings/commands/end-booking").releaseReservation;
let listReservations: typeof import("@/server/bookings/views/list-bookings").listReservations;
let countPastReservations: typeof import("@/server/bookings/views/list-bookings").countPastReservations;
let createTestUser: Fixtures["createTestUser"];
let createTestHost: Fixtures["createTestHost"];

const NOW = new Date("2026-12-01T10:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  ({ createReservation } = await import("@/server/bookings/commands/create-booking"));
  ({ releaseReservation } = await import("@/server/bookings/commands/end-booking"));
  ({ listReservations, countPastReservations } = await import("@/server/bookings/views/list-bookings"));
  ({ createTestUser, createTestHost } = await import("@/server/testing/booking-fixtures"));
}, 120_000);

describe("past bookings on /reservations", () => {
  it("come a page at a time, newest first, and a filter keeps those whose purpose or host holds the text", async () => {
    const host = await createTestHost(1);
    const person = await createTestUser();
    // Five runs one after another, each released when it ended (what `gpudesk run` leaves behind).
    const ids: string[] = [];
    for (let run = 0; run < 5; run += 1) {
      const booking = await createReservation(person, { host: host.name, gpus: [0], startsAt: at(run * 10).toISOString(), durationMinutes: 60, purpose: run % 2 === 0 ? `train ${run}` : `eval ${run}` }, { now: at(run * 10) });
      await releaseReservation(person, booking.id, { now: at(run * 10 + 5) });
      ids.push(booking.id);
    }
    const later = at(60);
    const first = await listReservations(person, { all: false, state: "past", limit: 2 }, later);
    const second = await listReservations(person, { all: false, state: "past", limit: 2, skip: 2 }, later);
    const third = await listReservations(person, { all: false, state: "past", limit: 2, skip: 4 }, later);
    expect([...first, ...second, ...third].map((booking) => booking.id)).toEqual([...ids].reverse());
    expect(await countPastReservations(person, { all: false }, later)).toBe(5);

    const trains = await listReservations(person, { all: false, state: "past", limit: 10, search: "train" }, later);
    expect(trains.map((booking) => booking.purpose)).toEqual(["train 4", "train 2", "train 0"]);
    expect(await countPastReservations(person, { all: false, search: "train" }, later)).toBe(3);
    expect(await countPastReservations(person, { all: false, search: host.name }, later)).toBe(5);
  });
});
