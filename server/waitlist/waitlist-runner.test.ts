import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { TickView } from "@/server/tick/tick-view";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The runner grants within one tick (a second) of the units freeing: a
 * booking that ends by itself (nothing announces an expiry; the runner's
 * 10 s loop was all that saw it), a limit raised, a unit that work without
 * a booking left. Real timers, the real booking feed and database.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
let startWaitlistRunner: typeof import("@/server/waitlist/waitlist-runner").startWaitlistRunner;
let startBookingFeed: typeof import("@/server/bookings/views/booking-feed").startBookingFeed;
let setPersonLimits: typeof import("@/server/teams/team-service").setPersonLimits;
let unitsFreed: typeof import("@/server/waitlist/units-freed");
let db: typeof import("@/server/core/db").db;
let createTestUser: Fixtures["createTestUser"];
let createTestHost: Fixtures["createTestHost"];

/** One tick of the server's pipeline. */
const TICK_MS = 1000;
const stops: (() => void)[] = [];

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ joinWaitlist } = await import("@/server/waitlist/join-waitlist"));
  ({ startWaitlistRunner } = await import("@/server/waitlist/waitlist-runner"));
  ({ startBookingFeed } = await import("@/server/bookings/views/booking-feed"));
  ({ setPersonLimits } = await import("@/server/teams/team-service"));
  unitsFreed = await import("@/server/waitlist/units-freed");
  ({ db } = await import("@/server/core/db"));
  ({ createTestUser, createTestHost } = await import("@/server/testing/booking-fixtures"));
}, 120_000);

afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** The runner as the server starts it, following the booking feed. */
async function startRunner() {
  const feed = await startBookingFeed();
  const runner = startWaitlistRunner({ bookings: feed });
  stops.push(() => runner.stop(), () => feed.stop());
}

/** When the waiting request became a booking (its booking's start: the grant's instant). */
async function grantedAt(entryId: string): Promise<number> {
  let at = 0;
  await vi.waitFor(
    async () => {
      const entry = await db().waitlistEntry.findUniqueOrThrow({ where: { id: entryId }, select: { status: true, reservationId: true } });
      expect(entry.status).toBe("granted");
      const booking = await db().reservation.findUniqueOrThrow({ where: { id: entry.reservationId! }, select: { startsAt: true } });
      at = booking.startsAt.getTime();
    },
    { timeout: 8000, interval: 50 },
  );
  return at;
}

describe("the waitlist runner", () => {
  it("grants within a tick of a booking ending by itself (expiry), not at its next 10 s look", async () => {
    const host = await createTestHost(1);
    const [bookedBy, alice] = await Promise.all([createTestUser(), createTestUser()]);
    // A booking of the one GPU that ends 2 s from now, made as if an hour ago.
    const endsAtMs = Date.now() + 2000;
    await createBooking(bookedBy, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "ends soon" }, { now: new Date(endsAtMs - 3600_000) });
    const entry = await joinWaitlist(alice, { count: 1, host: host.name, durationMinutes: 30, purpose: "next" });
    await startRunner();
    const at = await grantedAt(entry.id);
    expect(at).toBeGreaterThanOrEqual(endsAtMs);
    expect(at - endsAtMs).toBeLessThan(TICK_MS);
  });

  it("grants within a tick of a limit raised", async () => {
    const [hostA, hostB] = await Promise.all([createTestHost(1), createTestHost(1)]);
    const [admin, alice] = await Promise.all([createTestUser("admin"), createTestUser()]);
    await setPersonLimits(admin, alice.id, { maxGpus: 1 });
    await createBooking(alice, { host: hostA.name, gpus: [0], durationMinutes: 60, purpose: "holding one" });
    const entry = await joinWaitlist(alice, { count: 1, host: hostB.name, durationMinutes: 30, purpose: "a second" });
    await startRunner();
    // Held back by her limit of one GPU at once, however long the runner looks.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await db().waitlistEntry.findUniqueOrThrow({ where: { id: entry.id }, select: { status: true } })).status).toBe("waiting");
    const raisedAt = Date.now();
    await setPersonLimits(admin, alice.id, { maxGpus: 2 });
    const at = await grantedAt(entry.id);
    expect(at - raisedAt).toBeLessThan(TICK_MS);
  });

  it("wakes when the tick sees a unit become free (work without a booking ended), and not for other changes", () => {
    const consumer = unitsFreed.unitsFreedConsumer();
    const woken = vi.fn();
    const stop = unitsFreed.onUnitsFreed(woken);
    try {
      const state = (value: GpuReconciliation["state"]) => ({ state: value, reservationId: null, bookedBy: null, processes: [], problem: null }) as GpuReconciliation;
      const view = (changed: Record<string, GpuReconciliation>) => ({ changed }) as unknown as TickView;
      consumer.consume!(view({ "GPU-a": state("unbooked_use"), "GPU-b": state("booked_idle") }));
      expect(woken).not.toHaveBeenCalled();
      consumer.consume!(view({ "GPU-a": state("free") }));
      expect(woken).toHaveBeenCalledTimes(1);
    } finally {
      stop();
    }
  });
});
