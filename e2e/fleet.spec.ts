import { expect, test } from "@playwright/test";
import { member, signIn } from "./helpers";

test.beforeEach(async ({ page }) => {
  await signIn(page, (await member()));
});

test("the fleet view shows the simulated fleet, live", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByText("Simulated fleet")).toBeVisible();
  await expect(page.getByTestId("connection-status")).toContainText("Live");

  for (const host of ["sim-h100-a", "sim-a100-a", "sim-4090-a", "sim-h100-mig"]) {
    const section = page.getByRole("region", { name: `Host ${host}` });
    await expect(section).toBeVisible();
    await expect(section.getByTestId("host-status")).toHaveText("online");
  }
  // 8 + 4 + 4 whole GPUs, and sim-h100-mig's split H100 (its slices' cards are named "GPU 0:1 (2g.20gb)").
  await expect(page.getByRole("article", { name: /^GPU \d on sim-/ })).toHaveCount(17);
  const h100 = page.getByRole("article", { name: "GPU 0 on sim-h100-a" });
  await expect(h100).toContainText("NVIDIA H100 80GB HBM3");
  await expect(h100.getByTestId("gpu-memory")).toContainText("79.6 GiB");

  // Utilization values move without a reload: collect the simulated hosts' numbers over a few seconds.
  // textContent, not innerText: other specs' hosts sort first, and cards below the fold skip rendering.
  const readAll = () => page.getByRole("region", { name: /^Host sim-/ }).getByTestId("gpu-util").allTextContents();
  const first = await readAll();
  await expect.poll(async () => (await readAll()).join("|"), { timeout: 15_000 }).not.toBe(first.join("|"));

  // Once live, nothing on the page animates without end: an endless animation (the live dot's ring was
  // one) keeps the page drawing every frame for as long as it is open, a third of a core here.
  const endless = () =>
    page.evaluate(() =>
      document.getAnimations().flatMap((animation) => {
        const target = animation.effect instanceof KeyframeEffect ? animation.effect.target : null;
        return animation.playState === "running" && animation.effect?.getTiming().iterations === Infinity ? [target?.outerHTML.slice(0, 120) ?? "?"] : [];
      }),
    );
  await expect.poll(endless, { timeout: 10_000 }).toEqual([]);

  await page.screenshot({ path: "test-results/screens/fleet-view.png", fullPage: true });
});

test("the split H100 of the demo fleet shows its four slices, each in its own state", async ({ page }) => {
  await page.goto("/");
  const section = page.getByRole("region", { name: "Host sim-h100-mig" });
  await expect(section.getByTestId("host-status")).toHaveText("online");
  await expect(section.getByRole("article", { name: "GPU 0 on sim-h100-mig" })).toContainText("split into MIG slices");
  // The demo story (server/demo/demo-story.ts): the 3g.40gb booked by whoever runs there, the 2g.20gb booked and idle,
  // a service without a booking on one 1g.10gb, the other free. Other specs' bookings never touch this host.
  const states = { "0:0 (3g.40gb)": "booked_in_use", "0:1 (2g.20gb)": "booked_idle", "0:2 (1g.10gb)": "unbooked_use", "0:3 (1g.10gb)": "free" };
  for (const [name, state] of Object.entries(states)) {
    await expect(section.getByRole("article", { name: `GPU ${name} on sim-h100-mig` }).getByTestId("gpu-state")).toHaveAttribute("data-state", state);
  }
  await expect(section.getByRole("article", { name: "GPU 0:2 (1g.10gb) on sim-h100-mig" })).toContainText("serve_embeddings.py");
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/screens/fleet-mig-host.png" });
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
