import { expect, test, type Page } from "@playwright/test";
import { E2E_ORIGIN, admin, member, signIn } from "./helpers";

/**
 * Every bookings page at a desktop and a phone size: it renders, the
 * page itself never scrolls sideways (the schedule scrolls inside its own
 * box), and a screenshot is kept for a person to look at.
 */

const SIZES = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;

const PAGES = [
  { path: "/reserve", heading: "Reserve GPUs", user: "member" },
  { path: "/reservations", heading: "My bookings", user: "member" },
  { path: "/schedule", heading: "Schedule", user: "member" },
  { path: "/admin/policies", heading: "Booking rules", user: "admin" },
  { path: "/admin/audit", heading: "Audit log", user: "admin" },
  { path: "/", heading: "Fleet", user: "member" },
] as const;

/**
 * Something to show: a booking an hour from now and one in nine days, on
 * whichever GPU the server picks; returns their ids. Both lie in time windows
 * of their own (the other specs book from now on, for at most a couple of
 * hours), so they never take a GPU another spec wants.
 */
async function bookSomething(page: Page, booked: string[]): Promise<void> {
  for (const hoursAhead of [3, 9 * 24]) {
    const response = await page.request.post("/api/v1/reservations", {
      data: { count: 1, durationMinutes: 120, purpose: "screenshot demo", startsAt: new Date(Date.now() + hoursAhead * 3600_000).toISOString() },
      headers: { origin: E2E_ORIGIN },
    });
    expect(response.status(), await response.text()).toBe(201);
    booked.push(((await response.json()) as { id: string }).id);
  }
}

/**
 * Live pages fill in after hydration: every time label has its text (they are
 * empty in the server's HTML) and the live connection, where the page has
 * one, is up. Only then does measuring the layout mean anything.
 */
async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const times = [...document.querySelectorAll("time")];
    const status = document.querySelector('[data-testid="connection-status"]');
    return times.every((time) => (time.textContent ?? "") !== "") && (!status || status.getAttribute("data-status") === "live");
  });
}

// Six pages, two people (made with the CLI on first use).
test.setTimeout(150_000);

for (const size of SIZES) {
  test(`booking pages at ${size.name} size`, async ({ browser }) => {
    // One signed-in context per person, so that nobody signs in twice.
    const contexts = { member: await browser.newContext({ viewport: size }), admin: await browser.newContext({ viewport: size }) };
    const pages = { member: await contexts.member.newPage(), admin: await contexts.admin.newPage() };
    const booked: string[] = [];
    try {
      await signIn(pages.member, (await member()));
      await signIn(pages.admin, (await admin()));
      await bookSomething(pages.member, booked);
      for (const entry of PAGES) {
        const page = pages[entry.user];
        await page.goto(entry.path);
        await expect(page.getByRole("heading", { level: 1, name: entry.heading })).toBeVisible();
        await hydrated(page);
        await expect
          .poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), { message: `${entry.path} scrolls sideways` })
          .toBeLessThanOrEqual(0);
        const name = entry.path === "/" ? "fleet" : entry.path.slice(1).replaceAll("/", "-");
        await page.screenshot({ path: `test-results/screens/${name}-${size.name}.png`, fullPage: true });
      }
    } finally {
      // Give the GPUs back whatever happened: later specs expect the GPUs they use to be free.
      for (const id of booked) {
        const released = await pages.member.request.post(`/api/v1/reservations/${id}/release`, { headers: { origin: E2E_ORIGIN } });
        expect(released.ok(), await released.text()).toBe(true);
      }
      await contexts.member.close();
      await contexts.admin.close();
    }
  });
}
