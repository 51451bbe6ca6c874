import { expect, test } from "@playwright/test";
import { member, signIn } from "./helpers";

test.beforeEach(async ({ page }) => {
  await signIn(page, member());
});

test("the fleet view shows the simulated fleet, live", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByText("Simulated fleet")).toBeVisible();
  await expect(page.getByTestId("connection-status")).toContainText("Live");

  for (const host of ["sim-h100-a", "sim-a100-a", "sim-4090-a"]) {
    const section = page.getByRole("region", { name: `Host ${host}` });
    await expect(section).toBeVisible();
    await expect(section.getByTestId("host-status")).toHaveText("online");
  }
  await expect(page.getByRole("article", { name: /^GPU \d on sim-/ })).toHaveCount(16);
  const h100 = page.getByRole("article", { name: "GPU 0 on sim-h100-a" });
  await expect(h100).toContainText("NVIDIA H100 80GB HBM3");
  await expect(h100.getByTestId("gpu-memory")).toContainText("79.6 GiB");

  // Utilization values move without a reload: collect the simulated hosts' numbers over a few seconds.
  // textContent, not innerText: other specs' hosts sort first, and cards below the fold skip rendering.
  const readAll = () => page.getByRole("region", { name: /^Host sim-/ }).getByTestId("gpu-util").allTextContents();
  const first = await readAll();
  await expect.poll(async () => (await readAll()).join("|"), { timeout: 15_000 }).not.toBe(first.join("|"));

  await page.screenshot({ path: "test-results/screens/fleet-view.png", fullPage: true });
});

test("the fleet view works on a phone without sideways scrolling", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  // A phone gets the dense view (one row per GPU) until the person chooses cards.
  await expect(page.getByRole("row", { name: "GPU 0 on sim-h100-a" })).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.screenshot({ path: "test-results/screens/fleet-view-phone.png" });
});
