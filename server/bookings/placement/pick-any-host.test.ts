process.env.TZ = "Asia/Kolkata";

import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let updatePolicy: typeof import("@/server/bookings/rules/policy").updatePolicy;
let BookingConflictError: typeof import("@/server/bookings/store/booking-conflict").BookingConflictError;
let fixtures: Fixtures;

const NOW = new Date("2027-05-20T08:00:00Z");

// Its own file: "any host" must see only the hosts this test made.
// Migrating a fresh database spawns Prisma's CLI: slow on a busy machine.
beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ updatePolicy } = await import("@/server/bookings/rules/policy"));
  ({ BookingConflictError } = await import("@/server/bookings/store/booking-conflict"));
  fixtures = await import("@/server/testing/booking-fixtures");
}, 60_000);

describe("any N GPUs on any host", () => {
  it("finds a host with room when none is named, and says when the next one frees up", async () => {
    const { createTestHost, createTestUser, refusal } = fixtures;
    const small = await createTestHost(1, "aa-small");
    const big = await createTestHost(2, "ab-big");
    const [a, b, c] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
    const window = { startsAt: "2027-06-01T00:00:00Z", durationMinutes: 60, purpose: "sweep" };

    const first = await createBooking(a, { count: 2, ...window }, { now: NOW });
    expect(first.host.name).toBe(big.name);
    await createBooking(b, { host: small.name, gpus: [0], startsAt: window.startsAt, durationMinutes: 30, purpose: "debug" }, { now: NOW });

    const none = await refusal(createBooking(c, { count: 2, ...window }, { now: NOW }));
    expect(none).toBeInstanceOf(BookingConflictError);
    expect(none.message).toContain("No 2 GPUs are free on any one host");
    expect(none.message).toContain(`booked by ${a.name}`);
    const suggestion = (none as InstanceType<typeof BookingConflictError>).suggestion;
    expect(suggestion).toMatchObject({ hostName: big.name, nextFreeAt: "2027-06-01T01:00:00.000Z" });

    const one = await createBooking(c, { count: 1, ...window, startsAt: "2027-06-01T00:30:00Z" }, { now: NOW });
    expect(one.host.name).toBe(small.name);
  });

  it("says no host is big enough when none has that many GPUs", async () => {
    const { createTestUser, refusal } = fixtures;
    const user = await createTestUser();
    const error = await refusal(createBooking(user, { count: 3, durationMinutes: 60, purpose: "too big" }, { now: NOW }));
    expect(error.code).toBe("bad_request");
    expect(error.fields).toEqual({ count: "No host has 3 GPUs" });
  });

  it("does not suggest a time beyond how far ahead the policy lets anyone book", async () => {
    const { createTestHost, createTestUser, refusal } = fixtures;
    const admin = await createTestUser("admin");
    await updatePolicy(admin, { maxDurationMinutes: 10 * 24 * 60, maxGpusPerUser: 8, maxAdvanceDays: 2 }, NOW);
    const host = await createTestHost(1, "ac-busy");
    const [a, b] = await Promise.all([createTestUser(), createTestUser()]);
    await createBooking(a, { host: host.name, gpus: [0], durationMinutes: 5 * 24 * 60, purpose: "long run" }, { now: NOW });
    const error = await refusal(createBooking(b, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "x" }, { now: NOW }));
    expect((error as InstanceType<typeof BookingConflictError>).suggestion.nextFreeAt).toBeNull();
    expect(error.message).toContain("Nothing fits within the booking rules");
  });
});
