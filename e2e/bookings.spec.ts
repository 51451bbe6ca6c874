import { expect, test, type Browser, type Page } from "@playwright/test";
import { E2E_ORIGIN, createUser, member, signIn, type TestUser } from "./helpers";

/**
 * Booking end to end, as two people at once: one books through the form,
 * the other watches the fleet and the schedule change without reloading.
 */

// Its own host and GPUs, so that other specs' bookings never stand in the way.
const HOST = "sim-a100-a";
/** Nobody's booking: "Free" when idle, "In use without a booking" when a process runs there anyway (the simulated notebook on GPU 2). */
const UNBOOKED = /^(Free|In use without a booking)$/;

async function signedInPage(browser: Browser, user: TestUser, permissions: string[] = []): Promise<Page> {
  const context = await browser.newContext({ permissions });
  const page = await context.newPage();
  await signIn(page, user);
  return page;
}

// Several accounts are made with the CLI first (a few seconds each).
test.setTimeout(180_000);

test("book through the form, see it live elsewhere, copy the settings, release, see the GPUs free again", async ({ browser }) => {
  const alice = (await member());
  const bob = await createUser("watcher");
  const booker = await signedInPage(browser, alice, ["clipboard-read", "clipboard-write"]);
  const watcher = await signedInPage(browser, bob);

  // Bob watches the fleet before anything is booked.
  await watcher.goto("/");
  const watchedCard = watcher.getByRole("article", { name: `GPU 2 on ${HOST}` });
  await expect(watchedCard.getByTestId("gpu-booker")).toHaveText(UNBOOKED);

  await booker.goto("/reserve");
  await booker.getByLabel("Host").selectOption(HOST);
  await booker.getByRole("button", { name: /^GPU 2, free/ }).click();
  await booker.getByRole("button", { name: /^GPU 3, free/ }).click();
  await expect(booker.getByRole("button", { name: /^GPU 2/ })).toHaveAttribute("aria-pressed", "true");
  await booker.getByText("1 hour", { exact: true }).click();
  await booker.getByRole("textbox", { name: "Purpose" }).fill("e2e fine-tune");
  await booker.getByRole("button", { name: "Book", exact: true }).click();

  await expect(booker.getByRole("heading", { name: `Booked: GPUs 2, 3 on ${HOST}` })).toBeVisible();
  const settings = booker.getByTestId("launch-settings");
  await expect(settings).toContainText("export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=2,3");
  await expect(settings).toContainText(`docker run --gpus '"device=2,3"'`);
  await expect(settings).toContainText("--nproc_per_node=2");
  await settings.getByRole("button", { name: "Copy export line", exact: true }).click();
  await expect(settings.getByRole("button", { name: "Copy export line", exact: true })).toHaveText("Copied");
  expect(await booker.evaluate(() => navigator.clipboard.readText())).toBe("export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=2,3");

  // Bob's fleet view shows it without a reload: who holds it, until when.
  await expect(watchedCard.getByTestId("gpu-booker")).toContainText(alice.username);
  await expect(watcher.getByRole("article", { name: `GPU 3 on ${HOST}` }).getByTestId("gpu-booker")).toContainText(alice.username);
  await expect(watcher.getByRole("article", { name: `GPU 1 on ${HOST}` }).getByTestId("gpu-booker")).toHaveText(UNBOOKED);

  // And on the schedule, with the purpose.
  await watcher.goto("/schedule");
  const bar = watcher.getByTestId(`schedule-row-${HOST}-2`).getByRole("button", { name: /e2e fine-tune/ });
  await expect(bar).toBeVisible();
  await bar.click();
  await expect(watcher.getByRole("region", { name: "Booking details" })).toContainText("e2e fine-tune");
  await watcher.goto("/");

  // Alice releases from her bookings; the launch settings are there again.
  await booker.getByRole("link", { name: "My bookings" }).first().click();
  const active = booker.getByRole("region", { name: "Active" });
  const card = active.getByRole("article", { name: `GPUs 2, 3 on ${HOST}` });
  // Only the first active booking shows its settings unfolded; unfold this one as a person would.
  const launch = card.getByRole("group").filter({ hasText: "Launch settings" });
  if ((await launch.getAttribute("open")) === null) await card.getByText("Launch settings", { exact: true }).click();
  await expect(card.getByTestId("launch-settings")).toContainText("CUDA_VISIBLE_DEVICES=2,3");
  await expect(card.getByTestId("launch-settings")).toBeVisible();
  await card.getByRole("button", { name: "Release now" }).click();
  await booker.getByRole("dialog").getByRole("button", { name: "Release", exact: true }).click();
  await expect(booker.getByRole("region", { name: "Past" }).getByRole("article", { name: `GPUs 2, 3 on ${HOST}` })).toContainText("Released");

  // Bob sees the GPUs free again, still without a reload.
  await expect(watcher.getByRole("article", { name: `GPU 2 on ${HOST}` }).getByTestId("gpu-booker")).toHaveText(UNBOOKED);
  await expect(watcher.getByRole("article", { name: `GPU 3 on ${HOST}` }).getByTestId("gpu-booker")).toHaveText(UNBOOKED);

  await booker.context().close();
  await watcher.context().close();
});

test("the booking form shows each field's own error, and a taken GPU says who has it", async ({ browser }) => {
  const user = (await member());
  const page = await signedInPage(browser, user);
  const taken = await page.request.post("/api/v1/reservations", {
    data: { host: HOST, gpus: [0], durationMinutes: 30, purpose: "blocking GPU 0", allowBusy: true },
    headers: { origin: E2E_ORIGIN },
  });
  expect(taken.status()).toBe(201);

  await page.goto("/reserve");
  await page.getByLabel("Host").selectOption(HOST);
  const gpu0 = page.getByRole("button", { name: new RegExp(`^GPU 0, booked by ${user.username} until`) });
  await expect(gpu0).toBeDisabled();

  await page.getByRole("button", { name: "Book", exact: true }).click();
  await expect(page.getByText("Choose at least one GPU.")).toBeVisible();
  await expect(page.getByText("Say what the GPUs are for.")).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Purpose" })).toHaveAttribute("aria-invalid", "true");

  await page.getByText("Later", { exact: true }).click();
  await page.getByText("Until…", { exact: true }).click();
  await page.getByRole("button", { name: "Book", exact: true }).click();
  await expect(page.getByText("Choose a start date and time.")).toBeVisible();
  await expect(page.getByText("Choose an end date and time.")).toBeVisible();

  const release = await page.request.post(`/api/v1/reservations/${(await taken.json()).id}/release`, { headers: { origin: E2E_ORIGIN } });
  expect(release.status()).toBe(200);
  await page.context().close();
});
