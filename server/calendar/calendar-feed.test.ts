import ICAL from "ical.js";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let renderCalendarFeed: typeof import("@/server/calendar/calendar-feed").renderCalendarFeed;
let listCalendarFeeds: typeof import("@/server/calendar/calendar-feed").listCalendarFeeds;
let db: typeof import("@/server/core/db").db;
let createTestUser: Fixtures["createTestUser"];
let createTestHost: Fixtures["createTestHost"];

const NOW = new Date("2026-12-01T10:00:00Z");
const later = (hours: number) => new Date(NOW.getTime() + hours * 3600_000);

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ renderCalendarFeed, listCalendarFeeds } = await import("@/server/calendar/calendar-feed"));
  ({ db } = await import("@/server/core/db"));
  ({ createTestUser, createTestHost } = await import("@/server/testing/booking-fixtures"));
}, 120_000);

/** The feed's events as a real iCalendar parser reads them. */
function parse(text: string) {
  const calendar = new ICAL.Component(ICAL.parse(text));
  return calendar.getAllSubcomponents("vevent").map((vevent) => {
    const event = new ICAL.Event(vevent);
    return { uid: event.uid, summary: event.summary, description: event.description, start: event.startDate.toJSDate().toISOString(), end: event.endDate.toJSDate().toISOString() };
  });
}

function secretOf(path: string): string {
  return path.replace("/api/v1/calendar/", "").replace(/\.ics$/, "");
}

describe("the calendar feeds", () => {
  it("names a booking across nodes once, with every node, however its parts differ in size (it said '3 H100 GPUs on 2 nodes on a and b')", async () => {
    const [a, b] = [await createTestHost(2), await createTestHost(2)];
    const person = await createTestUser();
    const { createMultiNodeBooking } = await import("@/server/bookings/commands/create-multi-node");
    const booking = await createMultiNodeBooking(person, { parts: [{ host: a.name, gpus: [0, 1] }, { host: b.name, gpus: [1] }], startsAt: later(2).toISOString(), durationMinutes: 60, purpose: "uneven" }, { now: NOW });
    const events = parse(await renderCalendarFeed(secretOf((await listCalendarFeeds(person)).mine), NOW));
    expect(events.map((event) => [event.uid, event.summary])).toEqual([[`${booking.id}@gpudesk`, `GPU booking: 2 + 1 H100 on ${a.name} and ${b.name}`]]);
  });

  it("lists a person's own bookings, and only theirs, as a parser reads them", async () => {
    const host = await createTestHost(2);
    const [lin, other] = await Promise.all([createTestUser(), createTestUser()]);
    const first = await createBooking(lin, { host: host.name, gpus: [0], startsAt: later(1).toISOString(), durationMinutes: 120, purpose: `course; week 1, lab ${"é".repeat(90)}` }, { now: NOW });
    const second = await createBooking(lin, { host: host.name, gpus: [1], startsAt: later(30).toISOString(), durationMinutes: 60, purpose: "línea\nsecond" }, { now: NOW });
    await createBooking(other, { host: host.name, gpus: [1], startsAt: later(1).toISOString(), durationMinutes: 60, purpose: "not lin's" }, { now: NOW });

    const { mine, hosts } = await listCalendarFeeds(lin);
    expect(hosts).toEqual([]);
    const events = parse(await renderCalendarFeed(secretOf(mine), NOW));
    expect(events.map((event) => event.uid)).toEqual([`${first.id}@gpudesk`, `${second.id}@gpudesk`]);
    expect(events[0]).toMatchObject({ summary: `GPU booking: ${host.name} GPU 0`, start: later(1).toISOString(), end: later(3).toISOString() });
    // Escaped text reads back as written.
    expect(events[0].description.split("\n")[0]).toBe(`course; week 1, lab ${"é".repeat(90)}`);
    expect(events[1].description.split("\n").slice(0, 2)).toEqual(["línea", "second"]);
  });

  it("keeps a purpose's line breaks of every form inside its text: no parser finds a line of its own in an admin's host feed", async () => {
    const host = await createTestHost(1);
    const [boss, member] = await Promise.all([createTestUser("admin"), createTestUser()]);
    const planted = "x\rEND:VEVENT\rBEGIN:VEVENT\rSUMMARY:planted\u2028DTSTART:1\u0085UID:evil\r\nLOCATION:here\fX";
    await createBooking(member, { host: host.name, gpus: [0], startsAt: later(3).toISOString(), durationMinutes: 30, purpose: planted }, { now: NOW });
    const feed = (await listCalendarFeeds(boss)).hosts.find((entry) => entry.name === host.name);
    const text = await renderCalendarFeed(secretOf(feed!.path), NOW);
    // Lines end in CRLF only; none of the planted pieces starts a line, whichever break a parser splits on.
    expect(text.replace(/\r\n/g, "")).not.toMatch(/[\r\n\u0085\u2028\u2029\f\v]/);
    const lines = text.split(/\r\n|[\r\n\u0085\u2028\u2029]/);
    for (const line of lines) expect(line).not.toMatch(/^(SUMMARY:planted|DTSTART:1|UID:evil|LOCATION:here)/);
    expect(lines.filter((line) => line.startsWith("BEGIN:VEVENT"))).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith("END:VEVENT"))).toHaveLength(1);
    const events = parse(text);
    expect(events).toHaveLength(1);
    expect(events[0].description.split("\n").slice(0, 3)).toEqual(["x", "END:VEVENT", "BEGIN:VEVENT"]);
  });

  it("names a MIG slice as every surface does, in the summary, the description and the location", async () => {
    const { createMigTestHost } = await import("@/server/testing/booking-fixtures");
    const host = await createMigTestHost(["4g.40gb", "3g.40gb"]);
    const person = await createTestUser();
    await createBooking(person, { host: host.name, slices: ["0:1"], startsAt: later(1).toISOString(), durationMinutes: 60, purpose: "slice work" }, { now: NOW });
    const [event] = parse(await renderCalendarFeed(secretOf((await listCalendarFeeds(person)).mine), NOW));
    expect(event!.summary).toBe(`GPU booking: ${host.name} GPU 0:1 (3g.40gb)`);
    expect(event!.description.split("\n")).toContain(`${host.name} GPU 0:1 (3g.40gb)`);
  });

  it("refuses an address that was changed, and a disabled person's", async () => {
    const person = await createTestUser();
    const secret = secretOf((await listCalendarFeeds(person)).mine);
    const forged = `${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
    await expect(renderCalendarFeed(forged, NOW)).rejects.toMatchObject({ code: "not_found" });
    await expect(renderCalendarFeed(`p-${"x".repeat(10)}.${"A".repeat(32)}`, NOW)).rejects.toMatchObject({ code: "not_found" });
    await db().user.update({ where: { id: person.id }, data: { banned: true } });
    await expect(renderCalendarFeed(secret, NOW)).rejects.toMatchObject({ code: "not_found" });
  });

  it("gives an admin one feed per host, with everyone's bookings, for as long as they are an admin", async () => {
    const host = await createTestHost(1);
    const [boss, member] = await Promise.all([createTestUser("admin"), createTestUser()]);
    const booking = await createBooking(member, { host: host.name, gpus: [0], startsAt: later(2).toISOString(), durationMinutes: 30, purpose: "on the host" }, { now: NOW });
    const feed = (await listCalendarFeeds(boss)).hosts.find((entry) => entry.name === host.name);
    expect(feed).toBeDefined();
    const events = parse(await renderCalendarFeed(secretOf(feed!.path), NOW));
    expect(events).toEqual([expect.objectContaining({ uid: `${booking.id}@gpudesk`, summary: expect.stringContaining(`${host.name} GPU 0`) })]);
    expect(events[0].summary).toContain(member.name);

    await db().user.update({ where: { id: boss.id }, data: { role: "member" } });
    await expect(renderCalendarFeed(secretOf(feed!.path), NOW)).rejects.toMatchObject({ code: "not_found" });
  });
});
