import { expect, test } from "@playwright/test";
import { E2E_ORIGIN, admin, createUser, member, signIn } from "./helpers";

/** The wall display on the shared e2e server (the demo fleet): who may open it, and what a tile says. */

// Other specs add hosts of their own to the shared server (agents they start and stop);
// the counts below are about the three demo hosts of whole GPUs only (sim-h100-mig has a test of its own).
const DEMO_HOSTS = "hosts=sim-h100-a,sim-a100-a,sim-4090-a";

test("a wall screen without a valid display token gets a full-screen message, never the sign-in page", async ({ page }) => {
  await page.goto("/display?token=gpd_disp_not-a-real-token");
  await expect(page.getByRole("heading", { name: "This display link is not valid" })).toBeVisible();
  await expect(page).toHaveURL(/\/display\?token=/);
  await expect(page.getByLabel("Password")).toHaveCount(0);
  await page.screenshot({ path: "test-results/screens/display-invalid-token.png" });

  await page.goto("/display");
  await expect(page.getByRole("heading", { name: "This screen needs a display link" })).toBeVisible();
  await expect(page).toHaveURL(/\/display$/);

  // A personal token in an address would leak its owner's rights into browser history and logs.
  await page.goto("/display?token=gpd_pat_whatever");
  await expect(page.getByRole("heading", { name: /Use a display token here/ })).toBeVisible();
});

test("a signed-in person sees the display with the session; ?hosts= limits it to those hosts", async ({ page }) => {
  await signIn(page, (await member()));
  await page.goto(`/display?${DEMO_HOSTS}`);
  await expect(page.getByTestId("display-tile")).toHaveCount(16);
  await expect(page.getByTestId("display-updated")).toContainText(/\d\d:\d\d:\d\d/);
  // The display scope counts the fleet's open alerts.
  await expect(page.getByTestId("display-alerts")).toContainText(/Open alerts \d+/);

  await page.goto("/display?hosts=sim-a100-a,sim-4090-a");
  await expect(page.getByTestId("display-tile")).toHaveCount(8);
  await expect(page.getByRole("region", { name: "Host sim-a100-a" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Host sim-4090-a" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Host sim-h100-a" })).toHaveCount(0);

  await page.goto("/display?hosts=no-such-host");
  await expect(page.getByRole("heading", { name: "None of these hosts is in the fleet" })).toBeVisible();
});

test("the split H100 shows a tile per slice, with the bookers of the booked ones", async ({ page }) => {
  await signIn(page, (await member()));
  await page.goto("/display?hosts=sim-h100-mig");
  await expect(page.getByTestId("display-tile")).toHaveCount(4);
  await expect(page.getByTestId("display-host-label")).toContainText("1 × H100 in 4 MIG slices");
  const tile = (name: string) => page.getByRole("listitem", { name: new RegExp(`^MIG slice ${name} on sim-h100-mig`) });
  await expect(tile("0:0 3g\\.40gb")).toHaveAttribute("data-state", "booked_in_use");
  await expect(tile("0:1 2g\\.20gb")).toHaveAttribute("data-state", "booked_idle");
  await expect(tile("0:2 1g\\.10gb")).toHaveAttribute("data-state", "unbooked_use");
  await expect(tile("0:3 1g\\.10gb")).toHaveAttribute("data-state", "free");
  // The demo people hold the two booked slices.
  for (const name of ["0:0 3g\\.40gb", "0:1 2g\\.20gb"]) {
    await expect(tile(name).getByTestId("display-booker")).toHaveText(/^(alice|bob|carol|dave|erin|frank)\s·\suntil (\w{3} )?\d\d:\d\d$/i);
  }
  await page.screenshot({ path: "test-results/screens/display-mig-host.png" });
});

test("a booking shows its booker and end on the tile; someone else's process on it is a conflict, without naming them", async ({ page }) => {
  // A display name of their own: the wall never shows a login (where the name is the username it says "a lab member").
  const name = `Wren${Date.now().toString(36).slice(-5)}`;
  const user = await createUser("wall", { name });
  await signIn(page, user);
  const book = async (host: string, gpus: number[]) => {
    const response = await page.request.post("/api/v1/reservations", {
      // allowBusy: the busy GPU is booked over someone's running job on purpose, to show the conflict.
      data: { host, gpus, durationMinutes: 120, purpose: "wall display e2e", allowBusy: true },
      headers: { origin: E2E_ORIGIN },
    });
    expect(response.status(), await response.text()).toBe(201);
    return (await response.json()) as { id: string };
  };
  // sim-4090-a GPU 1 is never used in the demo fleet; sim-h100-a GPU 6 always runs someone's service, unbooked.
  const idle = await book("sim-4090-a", [1]);
  const busy = await book("sim-h100-a", [6]);
  try {
    await page.goto(`/display?${DEMO_HOSTS}`);
    const idleTile = page.getByRole("listitem", { name: /^GPU 1 on sim-4090-a/ });
    await expect(idleTile).toHaveAttribute("data-state", "booked_idle");
    // The name, or its initials where the end needs its day too ("until Sun 00:32", near midnight) and the name no longer fits.
    await expect(idleTile.getByTestId("display-booker")).toHaveText(new RegExp(`^(${name}|WR)\\s·\\suntil (\\w{3} )?\\d\\d:\\d\\d$`));
    const busyTile = page.getByRole("listitem", { name: /^GPU 6 on sim-h100-a/ });
    await expect(busyTile).toHaveAttribute("data-state", "conflict");
    await expect(busyTile.getByTestId("display-tile-state")).toHaveText("Conflict");
    // The booker's end time stays whole on a conflict.
    // Two hours from now may be tomorrow: the day is named then ("until Tue 00:15").
    await expect(busyTile.getByTestId("display-booker")).toHaveText(new RegExp(`until (\\w{3} )?\\d\\d:\\d\\d$`));
    await page.screenshot({ path: "test-results/screens/display-bookings.png" });
  } finally {
    for (const { id } of [idle, busy]) {
      await page.request.post(`/api/v1/reservations/${id}/release`, { headers: { origin: E2E_ORIGIN } });
    }
  }
  await expect(page.getByRole("listitem", { name: /^GPU 1 on sim-4090-a/ })).toHaveAttribute("data-state", "free");
});

test("after a network cut the display shows it is stale, then recovers by itself", async ({ page, context }) => {
  test.setTimeout(90_000);
  await signIn(page, (await member()));
  await page.goto(`/display?${DEMO_HOSTS}`);
  await expect(page.getByTestId("display-tile")).toHaveCount(16);
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

  await context.setOffline(true);
  const banner = page.getByTestId("display-stale-banner");
  await expect(banner).toBeVisible({ timeout: 25_000 });
  await expect(banner).toContainText(/Stale since \d\d:\d\d:\d\d/);
  await context.setOffline(false);
  await expect(banner).toHaveCount(0, { timeout: 30_000 });
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
});

test("a display whose token is revoked loses its feed at once and says so, and keeps trying by itself", async ({ page, browser }) => {
  test.setTimeout(90_000);
  await signIn(page, (await admin()));
  const created = await page.request.post("/api/v1/displays", {
    data: { name: `wall-revoked-${Date.now().toString(36)}` },
    headers: { origin: E2E_ORIGIN },
  });
  expect(created.status()).toBe(201);
  const { token, display } = (await created.json()) as { token: string; display: { id: string } };

  // The wall is another browser, without anyone's session.
  const wall = await browser.newContext();
  try {
    const screen = await wall.newPage();
    await screen.goto(`/display?token=${encodeURIComponent(token)}&${DEMO_HOSTS}`);
    await expect(screen.getByTestId("display-tile")).toHaveCount(16);

    const revoked = await page.request.delete(`/api/v1/displays/${display.id}`, { headers: { origin: E2E_ORIGIN } });
    expect(revoked.status()).toBe(204);
    // The server closes the open connection at once (issue 14, item 8), and the handshake that follows is refused.
    const banner = screen.getByTestId("display-stale-banner");
    await expect(banner).toContainText("refused", { timeout: 5_000 });
    await expect(screen.getByTestId("display-tile")).toHaveCount(16);
    await screen.screenshot({ path: "test-results/screens/display-revoked.png" });
  } finally {
    await wall.close();
  }
});
