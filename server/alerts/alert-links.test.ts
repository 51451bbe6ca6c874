import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * An alert links to the booking it is about, on SQLite and PostgreSQL: a
 * silent host to the booking across nodes that has a node there (once, by
 * its booking id, with every node), a GPU's alert about a part to its
 * booking; the page, the webhooks and Slack carry the link.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let fx: Fixtures;
let createMultiNodeBooking: typeof import("@/server/bookings/commands/create-multi-node").createMultiNodeBooking;
let store: typeof import("@/server/alerts/alert-store");
let buildPayload: typeof import("@/server/notifications/webhook-payload").buildPayload;

const NOW = new Date("2026-12-01T10:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  fx = await import("@/server/testing/booking-fixtures");
  ({ createMultiNodeBooking } = await import("@/server/bookings/commands/create-multi-node"));
  store = await import("@/server/alerts/alert-store");
  ({ buildPayload } = await import("@/server/notifications/webhook-payload"));
}, 120_000);

const condition = (over: Partial<import("@/server/alerts/alert-engine").Condition>): import("@/server/alerts/alert-engine").Condition => ({
  key: `k-${Math.random()}`,
  kind: "host_offline",
  scope: "host:x",
  hostId: null,
  gpuUuid: null,
  gpuIndex: null,
  bookingId: null,
  userIds: [],
  message: "silent",
  evidence: {},
  ...over,
});

describe("an alert links to its booking", () => {
  it("a silent host that carries a node of a booking across nodes links to that booking; a part's GPU alert to its booking", async () => {
    const [a, b, idle] = [await fx.createTestHost(2), await fx.createTestHost(2), await fx.createTestHost(1)];
    const person = await fx.createTestUser();
    const booking = await createMultiNodeBooking(person, { parts: [{ host: a.name, gpus: [0, 1] }, { host: b.name, gpus: [0, 1] }], startsAt: at(1).toISOString(), durationMinutes: 120, purpose: "ddp" }, { now: NOW });
    const name = `2 × 2 H100 on ${a.name} and ${b.name}`;
    const link = { id: booking.id, name, bookedById: person.id, path: `/reservations#booking-${booking.id}` };

    // Node 2's host fell silent at minute 5; the alert opened after its hold, at minute 10.
    const offline = await store.insertOpenedAlert({ condition: condition({ key: `host_offline:${b.id}`, hostId: b.id, userIds: [person.id], message: `${b.name} stopped reporting` }), openedAt: at(10).getTime(), since: at(5).getTime() });
    const view = await store.toAlertView(offline);
    expect(view.bookings).toEqual([link]);

    // A GPU alert about node 2's part links to the booking, not the part.
    const lost = await store.insertOpenedAlert({ condition: condition({ key: `gpu_lost:${b.gpus[0].uuid}`, kind: "gpu_lost", hostId: b.id, gpuUuid: b.gpus[0].uuid, gpuIndex: 0, bookingId: booking.parts[1].id, userIds: [person.id] }), openedAt: at(10).getTime(), since: at(10).getTime() });
    expect((await store.toAlertView(lost)).bookings).toEqual([link]);

    // A host with no booking links to none.
    const quiet = await store.insertOpenedAlert({ condition: condition({ key: `host_offline:${idle.id}`, hostId: idle.id }), openedAt: at(10).getTime(), since: at(5).getTime() });
    expect((await store.toAlertView(quiet)).bookings).toEqual([]);

    // Webhooks: the JSON body carries the booking's address, Slack a link named after it.
    const json = JSON.parse(buildPayload("json", "alert.opened", view, "https://gpudesk.lab/")) as { bookingLinks: string[]; alert: { bookings: unknown } };
    expect(json.bookingLinks).toEqual([`https://gpudesk.lab/reservations#booking-${booking.id}`]);
    expect(json.alert.bookings).toEqual([link]);
    const slack = JSON.parse(buildPayload("slack", "alert.opened", view, "https://gpudesk.lab")) as { text: string };
    expect(slack.text).toContain(`<https://gpudesk.lab/reservations#booking-${booking.id}|booking ${name}>`);
  });
});
