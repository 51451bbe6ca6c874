import { expect, test } from "@playwright/test";
import { createDisplayToken, startDisplayServer } from "./display-server";

/** A server of its own, stopped and started again mid-test: the shared e2e server must stay up for the others. */
test("when the server stops the display says it is stale; when it is back the display recovers without a reload", async ({ page }) => {
  test.setTimeout(300_000);
  const server = await startDisplayServer({ gpus: 16 });
  try {
    const token = createDisplayToken(server.dataDir, "wall-restart");
    await page.goto(`${server.url}/display?token=${encodeURIComponent(token)}`);
    await expect(page.getByTestId("display-tile")).toHaveCount(16);
    const banner = page.getByTestId("display-stale-banner");
    await expect(banner).toHaveCount(0);
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

    const stoppedAt = Date.now();
    await server.stop();
    await expect(banner).toBeVisible({ timeout: 25_000 });
    // Not at the first missed second: ten seconds without updates (the last came at most a tick before the stop began).
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(8_500);
    await expect(banner).toContainText(/Stale since \d\d:\d\d:\d\d/);
    await expect(page.getByTestId("display-tile")).toHaveCount(16);
    await page.screenshot({ path: "test-results/screens/display-stale.png" });
    const staleSince = await page.getByTestId("display-updated").innerText();

    await server.restart();
    await expect(banner).toHaveCount(0, { timeout: 60_000 });
    await expect(page.getByTestId("display-updated")).not.toHaveText(staleSince);
    await expect(page.getByTestId("display-tile")).toHaveCount(16);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    await page.screenshot({ path: "test-results/screens/display-recovered.png" });
  } finally {
    await server.dispose();
  }
});
