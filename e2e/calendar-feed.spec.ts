import ICAL from "ical.js";
import { expect, test } from "@playwright/test";
import { E2E_ORIGIN, createUser, releaseEverything, gpudesk, signIn, tokenFor } from "./helpers";

/**
 * The iCalendar feed a person subscribes to from Settings: fetched without
 * signing in (as a calendar app does), read by a real parser (ical.js), it
 * lists that person's bookings.
 */

test("my calendar feed parses with a real iCalendar parser and lists my bookings", async ({ page, request }) => {
  test.setTimeout(90_000);
  const person = await createUser("ical");
  const token = (await tokenFor(person));
  await signIn(page, person);
  const booked: string[] = [];
  try {
    // Ten and eleven days ahead: windows no other spec books.
    for (const days of [10, 11]) {
      const response = await page.request.post("/api/v1/reservations", {
        data: { count: 1, durationMinutes: 90, purpose: `ical e2e, day ${days}`, startsAt: new Date(Date.now() + days * 24 * 3600_000).toISOString() },
        headers: { origin: E2E_ORIGIN },
      });
      expect(response.status(), await response.text()).toBe(201);
      booked.push(((await response.json()) as { id: string }).id);
    }

    await page.goto("/settings/tokens");
    const feeds = page.getByRole("region", { name: "Calendar feeds" });
    await expect(feeds).toBeVisible();
    await page.screenshot({ path: "test-results/screens/settings-calendar-1440x900.png", fullPage: true });
    const address = (await feeds.locator("code").first().innerText()).trim();
    expect(address).toMatch(/\/api\/v1\/calendar\/p-[^/]+\.ics$/);

    // A calendar app: no cookie, no token.
    const feed = await request.get(new URL(address).pathname, { headers: {} });
    expect(feed.status()).toBe(200);
    expect(feed.headers()["content-type"]).toContain("text/calendar");
    const calendar = new ICAL.Component(ICAL.parse(await feed.text()));
    const events = calendar.getAllSubcomponents("vevent").map((vevent) => new ICAL.Event(vevent));
    expect(events.map((event) => event.uid).sort()).toEqual(booked.map((id) => `${id}@gpudesk`).sort());
    for (const event of events) {
      expect(event.description).toMatch(/^ical e2e, day 1[01]/);
      expect(event.endDate.toJSDate().getTime() - event.startDate.toJSDate().getTime()).toBe(90 * 60_000);
    }

    // One character changed: not found, and nothing said about why.
    const forged = address.replace(/.\.ics$/, (tail) => `${tail[0] === "A" ? "B" : "A"}.ics`);
    expect((await request.get(new URL(forged).pathname)).status()).toBe(404);
  } finally {
    await releaseEverything(request, token);
  }
});
