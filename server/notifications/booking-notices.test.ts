import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let fx: Fixtures;
let notices: typeof import("@/server/notifications/booking-notices");
let onPersonNotice: typeof import("@/server/notifications/notify-person").onPersonNotice;

const NOW = new Date("2026-12-01T10:00:00Z");
const later = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  fx = await import("@/server/testing/booking-fixtures");
  notices = await import("@/server/notifications/booking-notices");
  ({ onPersonNotice } = await import("@/server/notifications/notify-person"));
}, 60_000);

const stops: (() => void)[] = [];
afterEach(() => {
  while (stops.length > 0) stops.pop()!();
});

describe("the booker hears of a change someone else made", () => {
  it("follows the bookings' one announcement: an admin's shortening and cancelling are told, the booker's own changes are not", async () => {
    const { createBooking } = await import("@/server/bookings/commands/create-booking");
    const { changeBookingEnd } = await import("@/server/bookings/commands/change-booking");
    const { cancelBooking } = await import("@/server/bookings/commands/end-booking");
    const host = await fx.createTestHost(1);
    const person = await fx.createTestUser();
    const admin = await fx.createTestUser("admin");
    const told: { userId: string; event: string; title: string; text: string }[] = [];
    stops.push(onPersonNotice(({ userId, event, title, text }) => void told.push({ userId, event, title, text })));
    stops.push(notices.listenForBookingChanges());

    const booking = await createBooking(person, { host: host.name, gpus: [0], durationMinutes: 120, purpose: "told" }, { now: NOW });
    await changeBookingEnd(person, booking.id, { addMinutes: 30 }, { now: NOW });
    await changeBookingEnd(admin, booking.id, { endsAt: later(60).toISOString(), reason: "maintenance at noon" }, { now: NOW });
    await vi.waitFor(() => expect(told).toHaveLength(1));
    expect(told[0]).toMatchObject({ userId: person.id, event: "booking.changed_by_admin", title: `${admin.username} shortened your booking of GPU 0 on ${host.name}` });
    expect(told[0].text).toContain(`it now ends at ${later(60).toISOString()}`);

    await cancelBooking(admin, booking.id, "the node is needed", { now: later(10) });
    await vi.waitFor(() => expect(told).toHaveLength(2));
    expect(told[1]).toMatchObject({ userId: person.id, title: `${admin.username} cancelled your booking of GPU 0 on ${host.name}` });
    expect(told[1].text).toContain("Reason: the node is needed");
  });
});
