process.env.TZ = "Europe/Berlin";

import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let create: typeof import("@/server/bookings/commands/create-booking").createBooking;
let change: typeof import("@/server/bookings/commands/change-booking").changeBookingEnd;
let release: typeof import("@/server/bookings/commands/end-booking").releaseBooking;
let cancel: typeof import("@/server/bookings/commands/end-booking").cancelBooking;
let list: typeof import("@/server/bookings/views/list-bookings").listBookings;
let get: typeof import("@/server/bookings/views/list-bookings").getBooking;
let policy: typeof import("@/server/bookings/rules/policy");
let listAudit: typeof import("@/server/access/audit-log").listAudit;
let fx: Fixtures;

const NOW = new Date("2026-12-01T10:00:00Z");
const plus = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
const iso = (minutes: number) => plus(minutes).toISOString();

// Migrating a fresh database spawns Prisma's CLI: slow on a busy machine.
beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking: create } = await import("@/server/bookings/commands/create-booking"));
  ({ changeBookingEnd: change } = await import("@/server/bookings/commands/change-booking"));
  ({ releaseBooking: release, cancelBooking: cancel } = await import("@/server/bookings/commands/end-booking"));
  ({ listBookings: list, getBooking: get } = await import("@/server/bookings/views/list-bookings"));
  ({ listAudit } = await import("@/server/access/audit-log"));
  policy = await import("@/server/bookings/rules/policy");
  fx = await import("@/server/testing/booking-fixtures");
}, 60_000);

async function setup(gpus = 2) {
  const host = await fx.createTestHost(gpus);
  const [bookedBy, other, admin] = await Promise.all([fx.createTestUser(), fx.createTestUser(), fx.createTestUser("admin")]);
  const booking = await create(bookedBy, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "train" }, { now: NOW });
  return { host, bookedBy, other, admin, booking };
}

describe("extending and shortening", () => {
  it("lets the booker extend when nothing is in the way, and says how far it can go when something is", async () => {
    const { host, bookedBy, other, booking } = await setup();
    const longer = await change(bookedBy, booking.id, { addMinutes: 30 }, { now: NOW });
    expect(longer.endsAt).toBe(iso(90));
    await create(other, { host: host.name, gpus: [0], startsAt: iso(120), durationMinutes: 60, purpose: "next" }, { now: NOW });
    const error = await fx.refusal(change(bookedBy, booking.id, { endsAt: iso(150) }, { now: NOW }));
    expect(error.code).toBe("conflict");
    expect(error.message).toContain(`booked by ${other.name} from ${iso(120)} until ${iso(180)}`);
    expect(error.message).toContain(`You can extend until ${iso(120)}`);
    const upTo = await change(bookedBy, booking.id, { endsAt: iso(120) }, { now: NOW });
    expect(upTo.endsAt).toBe(iso(120));
  });

  it("lets nobody but the booker or an admin touch a booking", async () => {
    const { bookedBy, other, booking } = await setup();
    // One at a time: a refusal made before its turn would reject with nobody listening yet (an unhandled rejection).
    for (const attempt of [
      () => change(other, booking.id, { addMinutes: 10 }, { now: NOW }),
      () => change(other, booking.id, { addMinutes: -10 }, { now: NOW }),
      () => release(other, booking.id, { now: NOW }),
      () => get(other, booking.id, NOW),
    ]) {
      expect((await fx.refusal(attempt())).code).toBe("not_found");
    }
    expect((await fx.refusal(cancel(other, booking.id, "mine now", { now: NOW }))).code).toBe("not_found");
    expect((await fx.refusal(cancel(bookedBy, booking.id, "done", { now: NOW }))).code).toBe("forbidden");
  });

  it("lets an admin shorten anyone's booking with a reason the booker sees, but not extend it", async () => {
    const { bookedBy, admin, booking } = await setup();
    const noReason = await fx.refusal(change(admin, booking.id, { endsAt: iso(30) }, { now: NOW }));
    expect(noReason.fields).toHaveProperty("reason");
    expect((await fx.refusal(change(admin, booking.id, { addMinutes: 30 }, { now: NOW }))).code).toBe("forbidden");
    await change(admin, booking.id, { endsAt: iso(30), reason: "maintenance at 10:30" }, { now: NOW });
    const seen = await get(bookedBy, booking.id, NOW);
    expect(seen.endsAt).toBe(iso(30));
    expect(seen.changes).toMatchObject([
      { action: "reservation.shorten", actor: { id: admin.id }, reason: "maintenance at 10:30", endsAtBefore: iso(60), endsAtAfter: iso(30) },
    ]);
  });

  it("refuses a new end in the past, and longer than the policy allows", async () => {
    const { bookedBy, admin, booking } = await setup();
    expect((await fx.refusal(change(bookedBy, booking.id, { endsAt: iso(-5) }, { now: NOW }))).fields).toHaveProperty("endsAt");
    await policy.updatePolicy(admin, { maxDurationMinutes: 90, maxGpusPerUser: 8, maxAdvanceDays: 30 }, NOW);
    const tooLong = await fx.refusal(change(bookedBy, booking.id, { addMinutes: 31 }, { now: NOW }));
    expect(tooLong.fields?.addMinutes).toBe("A booking lasts at most 1 h 30 min in all");
    await policy.updatePolicy(admin, policy.DEFAULT_POLICY, NOW);
  });
});

describe("releasing and cancelling", () => {
  it("frees an active booking's GPUs at once, for anyone", async () => {
    const { host, bookedBy, other, booking } = await setup(1);
    const later = new Date(NOW.getTime() + 20 * 60_000);
    const released = await release(bookedBy, booking.id, { now: later });
    expect(released).toMatchObject({ state: "released", status: "released", endsAt: later.toISOString(), startsAt: NOW.toISOString() });
    const next = await create(other, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "mine now" }, { now: later });
    expect(next.startsAt).toBe(later.toISOString());
    expect((await fx.refusal(release(bookedBy, booking.id, { now: later }))).code).toBe("conflict");
  });

  it("withdraws a scheduled booking without it ever holding anything", async () => {
    const { host, bookedBy, other } = await setup(1);
    const future = await create(bookedBy, { host: host.name, gpus: [0], startsAt: iso(180), durationMinutes: 60, purpose: "later" }, { now: NOW });
    const withdrawn = await release(bookedBy, future.id, { now: NOW });
    expect(withdrawn.endsAt).toBe(withdrawn.startsAt);
    const taken = await create(other, { host: host.name, gpus: [0], startsAt: iso(150), durationMinutes: 120, purpose: "x" }, { now: NOW });
    expect(taken.state).toBe("scheduled");
  });

  it("lets an admin cancel with a reason that the booker reads", async () => {
    const { bookedBy, admin, booking } = await setup();
    expect((await fx.refusal(cancel(admin, booking.id, "   ", { now: NOW }))).fields).toHaveProperty("reason");
    const cancelled = await cancel(admin, booking.id, "GPU 0 needs a new fan", { now: NOW });
    expect(cancelled).toMatchObject({ state: "cancelled", cancelReason: "GPU 0 needs a new fan", cancelledBy: { id: admin.id } });
    const mine = await list(bookedBy, { all: false, state: "all", limit: 10 }, NOW);
    expect(mine.map((view) => view.id)).toContain(booking.id);
    expect(mine.find((view) => view.id === booking.id)?.changes[0]).toMatchObject({ action: "reservation.cancel", reason: "GPU 0 needs a new fan" });
    expect((await fx.refusal(change(bookedBy, booking.id, { addMinutes: 10 }, { now: NOW }))).code).toBe("conflict");
  });

  it("refuses to change a booking that has ended", async () => {
    const { bookedBy, booking } = await setup();
    const after = new Date(NOW.getTime() + 2 * 3600_000);
    expect((await fx.refusal(change(bookedBy, booking.id, { addMinutes: 10 }, { now: after }))).message).toContain("ended");
  });
});

describe("GPUs at once", () => {
  it("counts the GPUs a person holds at the same instant, not in total", async () => {
    const host = await fx.createTestHost(4);
    const [user, admin] = await Promise.all([fx.createTestUser(), fx.createTestUser("admin")]);
    await policy.updatePolicy(admin, { maxDurationMinutes: 24 * 60, maxGpusPerUser: 2, maxAdvanceDays: 30 }, NOW);
    const first = await create(user, { host: host.name, gpus: [0, 1], durationMinutes: 60, purpose: "a" }, { now: NOW });
    const third = await fx.refusal(create(user, { host: host.name, gpus: [2], startsAt: iso(30), durationMinutes: 60, purpose: "b" }, { now: NOW }));
    expect(third.fields?.gpus).toBe("You would hold 3 GPUs at once; the limit is 2 per person");
    // Back to back is not at once.
    await create(user, { host: host.name, gpus: [2, 3], startsAt: iso(60), durationMinutes: 60, purpose: "c" }, { now: NOW });
    const overlapExtend = await fx.refusal(change(user, first.id, { addMinutes: 10 }, { now: NOW }));
    expect(overlapExtend.message).toContain("GPUs at once");
    await policy.updatePolicy(admin, policy.DEFAULT_POLICY, NOW);
  });
});

describe("lists, policy and audit", () => {
  it("lists my bookings, everyone's only for an admin", async () => {
    const { bookedBy, other, admin, booking } = await setup();
    expect((await list(bookedBy, { all: false, state: "current", limit: 10 }, NOW)).map((view) => view.id)).toEqual([booking.id]);
    expect(await list(other, { all: false, state: "all", limit: 10 }, NOW)).toEqual([]);
    expect((await fx.refusal(list(other, { all: true, state: "all", limit: 10 }, NOW))).code).toBe("forbidden");
    expect((await list(admin, { all: true, state: "current", limit: 10 }, NOW)).map((view) => view.id)).toContain(booking.id);
  });

  it("lets only admins change the policy, and records who changed what", async () => {
    const [member, admin] = await Promise.all([fx.createTestUser(), fx.createTestUser("admin")]);
    expect((await fx.refusal(policy.updatePolicy(member, { maxDurationMinutes: 60, maxGpusPerUser: 1, maxAdvanceDays: 1 }, NOW))).code).toBe("forbidden");
    const before = await policy.getPolicy();
    const saved = await policy.updatePolicy(admin, { maxDurationMinutes: 120, maxGpusPerUser: 3, maxAdvanceDays: 7 }, NOW);
    expect(saved).toMatchObject({ maxDurationMinutes: 120, maxGpusPerUser: 3, maxAdvanceDays: 7, updatedBy: { id: admin.id } });
    const log = await listAudit(admin, { limit: 1, entityType: "policy" });
    expect(log.entries[0]).toMatchObject({
      action: "policy.update",
      actor: { id: admin.id },
      before: { maxDurationMinutes: before.maxDurationMinutes, maxGpusPerUser: before.maxGpusPerUser },
      after: { maxDurationMinutes: 120, maxGpusPerUser: 3, maxAdvanceDays: 7 },
    });
    expect((await fx.refusal(listAudit(member, { limit: 10 }))).code).toBe("forbidden");
    await policy.updatePolicy(admin, policy.DEFAULT_POLICY, NOW);
  });

  it("records create, extend and release of a booking with before and after", async () => {
    const { bookedBy, admin, booking } = await setup();
    await change(bookedBy, booking.id, { addMinutes: 15 }, { now: plus(1) });
    await release(bookedBy, booking.id, { now: plus(5) });
    const page = await listAudit(admin, { limit: 10, entityType: "reservation", entityId: booking.id });
    expect(page.entries.map((entry) => entry.action)).toEqual(["reservation.release", "reservation.extend", "reservation.create"]);
    expect(page.entries[1]).toMatchObject({ before: { endsAt: iso(60) }, after: { endsAt: iso(75) }, actor: { id: bookedBy.id } });
    const firstPage = await listAudit(admin, { limit: 2, entityType: "reservation", entityId: booking.id });
    const secondPage = await listAudit(admin, { limit: 2, entityType: "reservation", entityId: booking.id, cursor: firstPage.nextCursor ?? undefined });
    expect(secondPage.entries.map((entry) => entry.action)).toEqual(["reservation.create"]);
    expect(secondPage.nextCursor).toBeNull();
  });
});
