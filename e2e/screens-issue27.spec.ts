import { expect, test } from "@playwright/test";
import { E2E_ORIGIN, admin, signIn } from "./helpers";

/**
 * Screenshots of issue 27's screens at 1440×900, a 390×844 phone and
 * 3840×2160, for a person to look at (test-results/screens/issue27-*).
 * Each page must load and say which time zone it shows.
 */

const SIZES = [
  { name: "1440x900", width: 1440, height: 900 },
  { name: "390x844", width: 390, height: 844 },
  { name: "3840x2160", width: 3840, height: 2160 },
];

const PAGES = [
  { name: "fleet-filtered", path: "/?state=unbooked_use", ready: "fleet" },
  { name: "fleet-dense", path: "/?layout=dense", ready: "fleet", dense: true },
  { name: "schedule-week", path: "/schedule?view=week&host=sim-h100-a", ready: "zone" },
  { name: "schedule", path: "/schedule?host=sim-h100-a", ready: "zone" },
  { name: "settings-account", path: "/settings/account", ready: "zone" },
  { name: "admin-displays", path: "/admin/displays", ready: "zone" },
  { name: "usage", path: "/usage", ready: "zone" },
];

for (const size of SIZES) {
  test(`issue 27 screens at ${size.name}`, async ({ browser }) => {
    test.setTimeout(180_000);
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
    const page = await context.newPage();
    try {
      const boss = (await admin());
      await signIn(page, boss);
      const me = (await (await page.request.get("/api/v1/me")).json()) as { user: { id: string } };
      for (const shot of PAGES) {
        await page.evaluate(
          ([key, dense]) => (dense ? window.localStorage.setItem(key, "dense") : window.localStorage.removeItem(key)),
          [`gpudesk.fleet.layout.${me.user.id}`, shot.dense ? "1" : ""] as const,
        ).catch(() => {});
        await page.goto(shot.path);
        await expect(page.getByTestId("time-zone").first()).toBeVisible({ timeout: 30_000 });
        // A moment for the live values to paint: the page is hydrated once its time zone shows.
        await page.waitForTimeout(500);
        await page.screenshot({ path: `test-results/screens/issue27-${shot.name}-${size.name}.png` });
      }
      const created = await page.request.post("/api/v1/displays", { data: { name: `wall-shot-${size.name}-${Date.now().toString(36)}` }, headers: { origin: E2E_ORIGIN } });
      const { token } = (await created.json()) as { token: string };
      const wall = await context.newPage();
      await wall.goto(`/display?token=${encodeURIComponent(token)}`);
      await expect(wall.getByTestId("display-tile").first()).toBeVisible({ timeout: 30_000 });
      await wall.waitForTimeout(500);
      await wall.screenshot({ path: `test-results/screens/issue27-display-${size.name}.png` });
    } finally {
      await context.close();
    }
  });
}
