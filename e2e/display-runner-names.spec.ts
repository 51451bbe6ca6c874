import { expect, test } from "@playwright/test";
import { SIMULATED_USERS } from "@/host/collector/simulated/models";
import { E2E_ORIGIN, admin, signIn } from "./helpers";

/**
 * Issue 27: an admin may let a display name who runs on a GPU without a
 * booking (display names only, per display, off by default). The simulated
 * fleet runs sim-h100-a GPUs 4-6 without a booking, under demo accounts.
 */

test("a display names who runs without a booking only once its admin turns that on, and never a login", async ({ page, browser }) => {
  test.setTimeout(120_000);
  await signIn(page, (await admin()));
  const name = `wall-names-${Date.now().toString(36)}`;
  const created = await page.request.post("/api/v1/displays", { data: { name }, headers: { origin: E2E_ORIGIN } });
  expect(created.status()).toBe(201);
  const { token, display } = (await created.json()) as { token: string; display: { id: string; namesUnbookedRunner: boolean } };
  expect(display.namesUnbookedRunner).toBe(false);

  // The REST view of the same display: no runner's name while the setting is off.
  const restOff = await page.request.get("/api/v1/fleet", { headers: { authorization: `Bearer ${token}` } });
  const off = (await restOff.json()) as { gpus: { state: string; runnerName?: string }[] };
  expect(off.gpus.some((gpu) => gpu.state === "unbooked_use")).toBe(true);
  expect(off.gpus.filter((gpu) => gpu.runnerName !== undefined)).toEqual([]);

  const wall = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
  try {
    const screen = await wall.newPage();
    await screen.goto(`/display?token=${encodeURIComponent(token)}&hosts=sim-h100-a`);
    const unbooked = screen.locator('[data-testid="display-tile"][data-state="unbooked_use"]');
    await expect(unbooked.first()).toBeVisible({ timeout: 20_000 });
    await expect(unbooked.first().getByTestId("display-booker")).toHaveText(/^(no booking|no process visible)$/);

    // The admin turns it on in Admin → Displays; the screen reconnects into the named view by itself.
    await page.goto("/admin/displays");
    const toggle = page.getByRole("checkbox", { name: `Name who runs without a booking on ${name}` });
    await expect(toggle).not.toBeChecked();
    // The box follows the server's answer (it turns on once the change is stored), so a click, then wait.
    await toggle.click();
    await expect(toggle).toBeChecked({ timeout: 10_000 });
    await expect(page.getByRole("row", { name: new RegExp(name) })).toContainText("Names them");
    await expect(unbooked.first().getByTestId("display-booker")).toHaveText(/^\S.*\u00a0· no booking$/, { timeout: 20_000 });
    const shown = (await unbooked.first().getByTestId("display-booker").textContent()) ?? "";
    // A person's display name, never the login the process runs under: a demo account's name is its
    // login capitalized ("Frank"); a person who took a demo login over (alerts.spec.ts does, for
    // whichever login runs its job) shows their own name. Which login runs here depends on the hour.
    const runner = shown.replace(/\u00a0· no booking$/, "").trim();
    expect(runner).not.toBe("");
    expect(SIMULATED_USERS.map((user) => user.login)).not.toContain(runner);
    await screen.screenshot({ path: "test-results/screens/display-runner-names-1920x1080.png" });

    const restOn = await page.request.get("/api/v1/fleet", { headers: { authorization: `Bearer ${token}` } });
    const on = (await restOn.json()) as { gpus: { state: string; runnerName?: string }[] };
    const named = on.gpus.filter((gpu) => gpu.runnerName);
    expect(named.length).toBeGreaterThan(0);
    expect(named.every((gpu) => gpu.state === "unbooked_use")).toBe(true);

    // Audited like the display's other changes.
    const audit = await page.request.get(`/api/v1/audit?entityType=display&entityId=${display.id}`);
    expect(await audit.text()).toContain("display.update");
  } finally {
    await wall.close();
    await page.request.delete(`/api/v1/displays/${display.id}`, { headers: { origin: E2E_ORIGIN } });
  }
});
