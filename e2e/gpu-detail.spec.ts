import { expect, test } from "@playwright/test";
import { member, signIn } from "./helpers";

test.beforeEach(async ({ page }) => {
  await signIn(page, (await member()));
});

test("the GPU detail page draws its charts and lists the processes", async ({ page }) => {
  // Eight charts and a full-page screenshot: over a minute on a machine at load 20 (the deadline bounds a hung test only).
  test.setTimeout(120_000);
  await page.goto("/");
  const card = page.getByRole("article", { name: "GPU 0 on sim-h100-a" });
  await card.getByRole("link").first().click();
  await expect(page).toHaveURL(/\/gpus\/GPU-/);

  for (const chart of ["Utilization", "Memory", "Power", "Temperature"]) {
    const figure = page.getByRole("figure", { name: new RegExp(`^${chart}.* chart$`) });
    await expect(figure).toBeVisible();
    // recharts draws a series as an SVG path with a non-empty d attribute once data arrived.
    await expect(figure.locator("svg path.recharts-curve").first()).toHaveAttribute("d", /M.+L/);
  }
  await expect(page.getByRole("table", { name: /^Processes on this GPU/ })).toContainText("python");
  await page.screenshot({ path: "test-results/screens/gpu-detail.png", fullPage: true });
});

test("an unknown GPU says so and links back to the fleet", async ({ page }) => {
  await page.goto("/gpus/GPU-00000000-0000-0000-0000-000000000000");
  await expect(page.getByTestId("gpu-not-found")).toBeVisible();
  await page.getByRole("link", { name: /fleet/i }).first().click();
  await expect(page).toHaveURL(/\/$/);
});
