import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let createRecurringBookings: typeof import("@/server/bookings/commands/create-recurring").createRecurringBookings;
let createTestUser: Fixtures["createTestUser"];
let createTestHost: Fixtures["createTestHost"];
let createModelFleet: Fixtures["createModelFleet"];
let db: typeof import("@/server/core/db").db;

// Sunday 6 Dec 2026, 08:00 UTC; the series starts Monday 7 Dec at 09:00 UTC.
const NOW = new Date("2026-12-06T08:00:00Z");

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ createRecurringBookings } = await import("@/server/bookings/commands/create-recurring"));
  ({ createTestUser, createTestHost, createModelFleet } = await import("@/server/testing/booking-fixtures"));
  ({ db } = await import("@/server/core/db"));
}, 120_000);

describe("a weekly series of bookings", () => {
  it("across nodes: makes each occurrence whole, and refuses whole (with the single-host reason) the one a node is taken on", async () => {
    const { model, names } = await createModelFleet(2, 2);
    const [team, other] = await Promise.all([createTestUser(), createTestUser()]);
    // Tuesday of the first week, one GPU of node b: that day's occurrence cannot have both nodes.
    await createBooking(other, { host: names[1], gpus: [1], startsAt: "2026-12-08T10:00:00Z", durationMinutes: 60, purpose: "in the way" }, { now: NOW });

    const result = await createRecurringBookings(
      team,
      { booking: { nodes: 2, gpusPerNode: 2, model, startsAt: "2026-12-07T09:00:00Z", durationMinutes: 180, purpose: "nightly eval" }, weekdays: [1, 2, 3], weeks: 1, timeZone: "UTC" },
      { now: NOW },
    );
    expect(result.created.map((booking) => booking.startsAt)).toEqual(["2026-12-07T09:00:00.000Z", "2026-12-09T09:00:00.000Z"]);
    // Each occurrence is one booking across nodes: its node-0 part names both parts.
    for (const booking of result.created) {
      expect(booking.multiNode).toMatchObject({ label: `2 × 2 ${model}`, nodeCount: 2 });
      expect(booking.multiNode?.parts.map((part) => part.host.name)).toEqual(names);
    }
    expect(result.refused).toEqual([{ startsAt: "2026-12-08T09:00:00.000Z", endsAt: "2026-12-08T12:00:00.000Z", code: "conflict", message: expect.stringContaining("nothing was booked") }]);
    // Refused whole: on that Tuesday the team holds no part on either node.
    const tuesday = await db().reservation.count({ where: { userId: team.id, startsAt: new Date("2026-12-08T09:00:00Z") } });
    expect(tuesday).toBe(0);
    expect(await db().reservation.count({ where: { userId: team.id } })).toBe(4);
  });

  it("books every weekday 9-12 for two weeks, and lists the one occurrence another booking holds", async () => {
    const host = await createTestHost(1);
    const [teacher, other] = await Promise.all([createTestUser(), createTestUser()]);
    // Wednesday of the first week, 10:00-11:00: in the way of that day's occurrence only.
    const blocking = await createBooking(other, { host: host.name, gpus: [0], startsAt: "2026-12-09T10:00:00Z", durationMinutes: 60, purpose: "in the way" }, { now: NOW });

    const result = await createRecurringBookings(
      teacher,
      { booking: { host: host.name, gpus: [0], startsAt: "2026-12-07T09:00:00Z", durationMinutes: 180, purpose: "course" }, weekdays: [1, 2, 3, 4, 5], weeks: 2, timeZone: "UTC" },
      { now: NOW },
    );
    expect(result.created.map((booking) => booking.startsAt)).toEqual(
      ["07", "08", "10", "11", "14", "15", "16", "17", "18"].map((day) => `2026-12-${day}T09:00:00.000Z`),
    );
    expect(result.created.every((booking) => Date.parse(booking.endsAt) - Date.parse(booking.startsAt) === 3 * 3600_000)).toBe(true);
    expect(result.refused).toEqual([{ startsAt: "2026-12-09T09:00:00.000Z", endsAt: "2026-12-09T12:00:00.000Z", code: "conflict", message: expect.any(String) }]);
    expect(blocking.id).toBeTruthy();
  });

  it("lets the server answer between occurrences: the event loop gets a turn after each booking", async () => {
    const host = await createTestHost(1);
    const person = await createTestUser();
    let turns = 0;
    let running = true;
    const tick = () => {
      turns += 1;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const result = await createRecurringBookings(
      person,
      { booking: { host: host.name, gpus: [0], startsAt: "2026-12-07T13:00:00Z", durationMinutes: 30, purpose: "yielding" }, weekdays: [0, 1, 2, 3, 4, 5, 6], weeks: 4, timeZone: "UTC" },
      { now: NOW },
    );
    running = false;
    expect(result.created).toHaveLength(28);
    // What /api/health needs: a turn of the event loop at least once per occurrence, not one at the end.
    expect(turns).toBeGreaterThanOrEqual(28);
    // A deadline for a hung series, not a claim about speed: 28 bookings on a loaded machine's PostgreSQL.
  }, 90_000);

  it("books one series at a time per server, queues a few, and refuses more at once instead of piling them up", async () => {
    const host = await createTestHost(8);
    const people = await Promise.all(Array.from({ length: 7 }, () => createTestUser()));
    const series = people.map((person, gpu) =>
      createRecurringBookings(
        person,
        { booking: { host: host.name, gpus: [gpu], startsAt: "2026-12-07T15:00:00Z", durationMinutes: 30, purpose: `series ${gpu}` }, weekdays: [1, 2, 3, 4, 5], weeks: 2, timeZone: "UTC" },
        { now: NOW },
      ),
    );
    const results = await Promise.allSettled(series);
    const refused = results.filter((result) => result.status === "rejected");
    expect(refused.map((result) => (result as PromiseRejectedResult).reason)).toEqual([
      expect.objectContaining({ code: "rate_limited" }),
      expect.objectContaining({ code: "rate_limited" }),
    ]);
    // The series that ran did not interleave: each one's bookings were made before the next one's first.
    const done = results.flatMap((result) => (result.status === "fulfilled" ? [result.value.created.map((booking) => Date.parse(booking.createdAt))] : []));
    expect(done).toHaveLength(5);
    const spans = done.map((times) => [Math.min(...times), Math.max(...times)]).sort((a, b) => a[0] - b[0]);
    for (let index = 1; index < spans.length; index++) expect(spans[index][0]).toBeGreaterThanOrEqual(spans[index - 1][1]);
  }, 90_000);

  it("refuses a series whose weekdays never come", async () => {
    const host = await createTestHost(1);
    const person = await createTestUser();
    await expect(
      createRecurringBookings(person, { booking: { host: host.name, gpus: [0], startsAt: "2026-12-07T09:00:00Z", durationMinutes: 60, purpose: "x" }, weekdays: [6], weeks: 0, timeZone: "UTC" }, { now: NOW }),
    ).rejects.toMatchObject({ code: "bad_request" });
  });
});
