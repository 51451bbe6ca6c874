import type { Browser, Page } from "@playwright/test";
import { addPerson, createDisplayToken, type DisplayServer } from "./display-server";
import { expect, test } from "./fleet-160";
import { signedInPageOn } from "./helpers";

/**
 * Finding and comparing GPUs in a fleet of 160 (GPUDESK_SIM_GPUS=160, a
 * server of its own that the overview spec reads too, e2e/fleet-160.ts): the filter bar narrows the fleet and the URL
 * keeps it across a reload, the dense view is chosen and remembered, a
 * phone gets the dense view within its screen, and a 4K wall shows all 160
 * on one page.
 */

const GPUS = 160;
const screens = "test-results/screens";

test.describe.configure({ mode: "serial" });
let server: DisplayServer;
const person = { username: `scale${Date.now().toString(36)}`, password: "pw-scale-long-enough" };

test.beforeAll(async ({ fleet160 }) => {
  server = fleet160;
  addPerson(server.dataDir, person);
});

function signedInPage(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  return signedInPageOn(browser, server.url, person, viewport);
}

/** The host names whose sections the page shows. */
async function shownHosts(page: Page): Promise<string[]> {
  return page.locator("section[aria-label^='Host ']").evaluateAll((sections) => sections.map((section) => section.getAttribute("aria-label")!.slice("Host ".length)));
}

test("filters narrow the 160-GPU fleet, and a reload shows the same view", async ({ browser }) => {
  test.setTimeout(240_000);
  const page = await signedInPage(browser, { width: 1440, height: 900 });
  await page.goto("/");
  const shown = page.getByTestId("filter-shown");
  // The first page of a fresh server on a loaded machine: a deadline that only bounds a hang.
  await expect(shown).toHaveText(`${GPUS} GPUs`, { timeout: 90_000 });
  await page.screenshot({ path: `${screens}/fleet-filter-1440x900.png` });

  // A host: only its section is left, and the count says how many of the fleet show.
  const hostSelect = page.getByLabel("Host", { exact: true });
  const hosts = await hostSelect.locator("option").evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value).filter(Boolean));
  expect(hosts.length).toBeGreaterThan(1);
  const host = hosts[1];
  await hostSelect.selectOption(host);
  await expect(page).toHaveURL(new RegExp(`[?&]host=${encodeURIComponent(host)}`));
  await expect.poll(() => shownHosts(page)).toEqual([host]);
  const hostCount = Number(await shown.getAttribute("data-shown"));
  expect(hostCount).toBeGreaterThan(0);
  expect(hostCount).toBeLessThan(GPUS);
  await expect(shown).toHaveText(`${hostCount} of ${GPUS} GPUs shown`);

  // Text search over host and GPU: "gpu 0" leaves that host's GPU 0 alone.
  await page.getByLabel("Search").fill("gpu 0");
  await expect(page).toHaveURL(/[?&]q=gpu(\+|%20)0/);
  await expect(page.locator(`section[aria-label='Host ${host}'] article`)).toHaveCount(1);
  await expect(page.getByRole("article", { name: `GPU 0 on ${host}` })).toBeVisible();
  await page.getByLabel("Search").fill("");

  // A state's count filters when clicked; every card left wears that state.
  const stateButton = page.getByTestId("state-count").first();
  const state = (await stateButton.getAttribute("data-state"))!;
  await stateButton.click();
  await expect(stateButton).toHaveAttribute("aria-pressed", "true");
  await expect(page).toHaveURL(new RegExp(`[?&]state=${state}`));
  await expect.poll(async () => (await page.locator("article [data-testid='gpu-state']").evaluateAll((badges) => [...new Set(badges.map((badge) => badge.getAttribute("data-state")))])).join()).toBe(state);
  await page.screenshot({ path: `${screens}/fleet-filtered-1440x900.png`, fullPage: false });

  const url = page.url();
  await page.reload();
  await expect(page.getByTestId("filter-shown")).toContainText(`of ${GPUS} GPUs shown`, { timeout: 60_000 });
  expect(page.url()).toBe(url);
  await expect(page.getByLabel("Host", { exact: true })).toHaveValue(host);
  await expect(page.getByTestId("state-count").and(page.locator(`[data-state='${state}']`))).toHaveAttribute("aria-pressed", "true");
  await expect.poll(() => shownHosts(page)).toEqual([host]);

  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(page.getByTestId("filter-shown")).toHaveText(`${GPUS} GPUs`);
  await page.context().close();
});

test("the dense view is one row per GPU, remembered across reloads; a host folds", async ({ browser }) => {
  test.setTimeout(180_000);
  const page = await signedInPage(browser, { width: 1440, height: 900 });
  await page.goto("/");
  await expect(page.getByTestId("filter-shown")).toHaveText(`${GPUS} GPUs`, { timeout: 90_000 });
  await page.getByRole("button", { name: "Dense" }).click();
  await expect(page.getByRole("button", { name: "Dense" })).toHaveAttribute("aria-pressed", "true");
  await expect.poll(() => page.getByTestId("fleet-row").count(), { timeout: 60_000 }).toBe(GPUS);
  await expect(page.locator("article")).toHaveCount(0);
  await page.screenshot({ path: `${screens}/fleet-dense-1440x900.png` });

  const first = (await shownHosts(page))[0];
  const fold = page.getByRole("button", { name: first, exact: true });
  await fold.click();
  await expect(fold).toHaveAttribute("aria-expanded", "false");
  await expect(page.locator(`section[aria-label='Host ${first}'] [data-testid='fleet-row']`)).toHaveCount(0);

  await page.reload();
  await expect(page.getByRole("button", { name: "Dense" })).toHaveAttribute("aria-pressed", "true", { timeout: 60_000 });
  await expect(page.getByRole("button", { name: first, exact: true })).toHaveAttribute("aria-expanded", "false");
  await page.getByRole("button", { name: first, exact: true }).click();
  await expect(page.locator(`section[aria-label='Host ${first}'] [data-testid='fleet-row']`).first()).toBeVisible();
  await page.context().close();
});

test("a phone gets the dense view, with the header and the filter bar within its screen", async ({ browser }) => {
  test.setTimeout(180_000);
  const page = await signedInPage(browser, { width: 390, height: 844 });
  await page.goto("/");
  await expect(page.getByRole("button", { name: "Dense" })).toHaveAttribute("aria-pressed", "true", { timeout: 90_000 });
  await expect(page.getByTestId("fleet-row").first()).toBeVisible();
  await expect(page.locator("article")).toHaveCount(0);
  // Nothing wider than the screen but the tables' own scrolling boxes.
  const overflow = await page.evaluate(() => document.scrollingElement!.scrollWidth);
  expect(overflow).toBeLessThanOrEqual(390);
  for (const element of [page.locator("header").first(), page.getByLabel("Search"), page.getByLabel("Host", { exact: true })]) {
    const box = (await element.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  }
  await page.screenshot({ path: `${screens}/fleet-dense-390x844.png` });
  // Rows give the state, the utilization and who holds the GPU at once.
  const row = page.getByTestId("fleet-row").first();
  await expect(row.getByTestId("gpu-state")).toBeVisible();
  await expect(row.getByTestId("row-util")).toHaveText(/\d+ %|MIG|—/);
  await page.getByRole("button", { name: "Menu" }).click().catch(() => undefined);
  await page.screenshot({ path: `${screens}/fleet-menu-390x844.png` });
  await page.context().close();
});

test("a 4K wall display shows all 160 GPUs on one page, marked as simulated", async ({ browser }) => {
  test.setTimeout(180_000);
  const token = createDisplayToken(server.dataDir, "wall-4k");
  for (const screen of [
    { width: 3840, height: 2160 },
    { width: 1920, height: 1080 },
  ]) {
    const context = await browser.newContext({ viewport: screen, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${server.url}/display?token=${encodeURIComponent(token)}&rotate=60`);
    await expect(page.getByTestId("display-tile").first()).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId("display-simulated")).toHaveText(/simulated fleet/i);
    if (screen.width === 3840) {
      await expect(page.getByTestId("display-tile")).toHaveCount(GPUS);
      await expect(page.getByTestId("display-page")).toHaveCount(0);
      const scroll = await page.evaluate(() => ({ width: document.scrollingElement!.scrollWidth, height: document.scrollingElement!.scrollHeight }));
      expect(scroll.width).toBeLessThanOrEqual(screen.width);
      expect(scroll.height).toBeLessThanOrEqual(screen.height);
    } else {
      // The same fleet pages at 1080p: a quarter of the screen holds a quarter of the tiles. Pages follow the
      // clock (every display of a fleet shows the same page), so any page of several may be up.
      await expect(page.getByTestId("display-page")).toContainText(/Page \d+ \/ ([2-9]|\d\d)/);
      expect(await page.getByTestId("display-tile").count()).toBeLessThan(GPUS);
    }
    await page.screenshot({ path: `${screens}/display-${GPUS}-${screen.width}x${screen.height}.png` });
    await context.close();
  }
});

test("the overview shows every one of the 160 GPUs on one 1080p screen, in the wall's colours, each a link to its GPU", async ({ browser }) => {
  test.setTimeout(180_000);
  const page = await signedInPage(browser, { width: 1920, height: 1080 });
  await page.goto("/");
  const cells = page.getByTestId("overview-cell");
  await expect(cells).toHaveCount(GPUS, { timeout: 90_000 });
  // All of them at once, without scrolling: each cell's box lies within the first screen.
  const boxes = await cells.evaluateAll((links) => links.map((link) => link.getBoundingClientRect().toJSON() as DOMRect));
  for (const box of boxes) {
    expect(box.top).toBeGreaterThanOrEqual(0);
    expect(box.bottom).toBeLessThanOrEqual(1080);
    expect(box.right).toBeLessThanOrEqual(1920);
    expect(box.width).toBeGreaterThanOrEqual(12);
  }
  await expect(page.getByTestId("overview-host")).toHaveCount(GPUS / 8);
  // A cell wears the colour of its state's swatch in the filter bar, the wall's legend colour.
  const state = (await page.getByTestId("state-count").first().getAttribute("data-state"))!;
  const colourOf = (locator: import("@playwright/test").Locator) => locator.evaluate((element) => getComputedStyle(element).backgroundColor);
  const swatch = page.getByTestId("state-count").and(page.locator(`[data-state='${state}']`)).locator("span").first();
  expect(await colourOf(cells.and(page.locator(`[data-state='${state}']`)).first())).toBe(await colourOf(swatch));
  await page.screenshot({ path: `${screens}/fleet-overview-1920x1080.png` });

  // The page's filter fades what it leaves out; the cells it keeps are the GPUs it shows.
  await page.getByTestId("state-count").and(page.locator(`[data-state='${state}']`)).click();
  // Read together, after the filter applied (the count read at the click could still be the whole fleet's).
  const kept = page.locator("[data-testid='overview-cell'][data-kept='true']");
  await expect
    .poll(async () => {
      const shown = Number(await page.getByTestId("filter-shown").getAttribute("data-shown"));
      return shown < GPUS && (await kept.count()) === shown;
    })
    .toBe(true);
  await expect(cells).toHaveCount(GPUS);
  await page.screenshot({ path: `${screens}/fleet-overview-filtered-1920x1080.png` });

  // A cell opens its GPU's page.
  const first = cells.first();
  const uuid = (await first.getAttribute("href"))!.split("/").pop()!;
  await first.click();
  await expect(page).toHaveURL(new RegExp(`/gpus/${uuid}$`));
  await page.context().close();
});

test("on a phone the overview fits the screen's width and the dense rows say who booked each GPU, uncut", async ({ browser }) => {
  test.setTimeout(180_000);
  const page = await signedInPage(browser, { width: 390, height: 844 });
  // A booking of the spec's person, so that a row has a name to show.
  const booked = await page.request.post("/api/v1/reservations", {
    data: { count: 1, durationMinutes: 30, purpose: "phone row" },
    headers: { origin: server.url },
  });
  expect(booked.status(), await booked.text()).toBe(201);
  const booking = (await booked.json()) as { id: string; gpus: { uuid: string }[] };
  try {
    await page.goto("/");
    await expect(page.getByTestId("overview-cell")).toHaveCount(GPUS, { timeout: 90_000 });
    const overview = (await page.getByTestId("fleet-overview").boundingBox())!;
    expect(overview.x).toBeGreaterThanOrEqual(0);
    expect(overview.x + overview.width).toBeLessThanOrEqual(390);
    // The whole fleet in less than a phone's screen of scrolling.
    expect(overview.height).toBeLessThanOrEqual(844);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    await page.getByTestId("fleet-overview").screenshot({ path: `${screens}/fleet-overview-390x844.png` });

    const row = page.locator(`[data-testid='fleet-row'][data-uuid='${booking.gpus[0].uuid}']`);
    await row.scrollIntoViewIfNeeded();
    const bookedBy = row.getByTestId("row-booked-by");
    await expect(bookedBy).toHaveText(person.username);
    await expect(bookedBy).toBeInViewport({ ratio: 1 });
    const cut = await bookedBy.evaluate((element) => element.scrollWidth > element.clientWidth);
    expect(cut).toBe(false);
    const box = (await bookedBy.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${screens}/fleet-dense-booked-390x844.png` });
  } finally {
    await page.request.post(`/api/v1/reservations/${booking.id}/release`, { headers: { origin: server.url } });
    await page.context().close();
  }
});

test("the overview on a 4K screen", async ({ browser }) => {
  test.setTimeout(120_000);
  const page = await signedInPage(browser, { width: 3840, height: 2160 });
  await page.goto("/");
  await expect(page.getByTestId("overview-cell")).toHaveCount(GPUS, { timeout: 90_000 });
  await page.screenshot({ path: `${screens}/fleet-overview-3840x2160.png` });
  await page.context().close();
});
