import { expect, test, type Page } from "@playwright/test";
import { E2E_ORIGIN, admin, member, signIn } from "./helpers";

/**
 * Every reservations page at a desktop and a phone size: it renders, the
 * page itself never scrolls sideways (the schedule scrolls inside its own
 * box), and a screenshot is kept for a person to look at.
 */

const SIZES = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;

const PAGES = [
  { path: "/reserve", heading: "Reserve GPUs", user: "member" },
  { path: "/reservations", heading: "My reservations", user: "member" },
  { path: "/schedule", heading: "Schedule", user: "member" },
  { path: "/admin/policies", heading: "Booking rules", user: "admin" },
  { path: "/admin/audit", heading: "Audit log", user: "admin" },
  { path: "/", heading: "Fleet", user: "member" },
] as const;

/** Something to show: a booking now and one tomorrow, on whichever GPU the server picks; returns their ids. */
async function bookSomething(page: Page): Promise<string[]> {
  const ids: string[] = [];
  for (const startsAt of [undefined, new Date(Date.now() + 26 * 3600_000).toISOString()]) {
    const response = await page.request.post("/api/v1/reservations", {
      data: { count: 1, durationMinutes: 120, purpose: "screenshot demo", ...(startsAt ? { startsAt } : {}) },
      headers: { origin: E2E_ORIGIN },
    });
    expect(response.status()).toBe(201);
    ids.push(((await response.json()) as { id: string }).id);
  }
  return ids;
}

// Six pages, two people (made with the CLI on first use).
test.setTimeout(150_000);

for (const size of SIZES) {
  test(`reservation pages at ${size.name} size`, async ({ browser }) => {
    // One signed-in context per person, so that nobody signs in twice.
    const contexts = { member: await browser.newContext({ viewport: size }), admin: await browser.newContext({ viewport: size }) };
    const pages = { member: await contexts.member.newPage(), admin: await contexts.admin.newPage() };
    await signIn(pages.member, member());
    await signIn(pages.admin, admin());
    const booked = await bookSomething(pages.member);
    for (const entry of PAGES) {
      const page = pages[entry.user];
      await page.goto(entry.path);
      await expect(page.getByRole("heading", { level: 1, name: entry.heading })).toBeVisible();
      // Live pages fill in after hydration: wait for the time labels and the socket.
      await page.waitForTimeout(1500);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${entry.path} scrolls sideways`).toBeLessThanOrEqual(0);
      const name = entry.path === "/" ? "fleet" : entry.path.slice(1).replaceAll("/", "-");
      await page.screenshot({ path: `test-results/screens/${name}-${size.name}.png`, fullPage: true });
    }
    // Give the GPUs back: later specs expect the GPUs they use to be free.
    for (const id of booked) {
      const released = await pages.member.request.post(`/api/v1/reservations/${id}/release`, { headers: { origin: E2E_ORIGIN } });
      expect(released.ok()).toBe(true);
    }
    await contexts.member.close();
    await contexts.admin.close();
  });
}
