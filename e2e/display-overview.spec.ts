import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fleet-160";
import { addPerson, createDisplayToken, startDisplayServer, type DisplayServer } from "./display-server";
import { signedInPageOn } from "./helpers";

/**
 * The fleet overview at scale: the wall's `?layout=overview` holds every
 * unit of a 160-GPU and a 1,000-GPU fleet on one screen at 1920×1080,
 * 3840×2160 and 390×844 with every host's name whole; the fleet page's
 * overview at 1,000 GPUs stays inside its box; the phone's dense table
 * keeps its GPU column in view when it scrolls sideways.
 */

const screens = "test-results/screens";
const SCREENS = [
  { width: 1920, height: 1080 },
  { width: 3840, height: 2160 },
  { width: 390, height: 844 },
];

interface OverviewReport {
  cells: { left: number; top: number; right: number; bottom: number; width: number }[];
  /** Labels whose text is wider than their box, or whose box leaves its host group or the screen. */
  cutLabels: string[];
  labelFonts: number[];
  scroll: { width: number; height: number; clientWidth: number; clientHeight: number };
  legend: string;
}

async function readOverview(page: Page): Promise<OverviewReport> {
  return page.evaluate(() => {
    const scrolling = document.scrollingElement ?? document.documentElement;
    const labels = [...document.querySelectorAll<HTMLElement>('[data-testid="display-overview-label"]')];
    return {
      cells: [...document.querySelectorAll('[data-testid="display-overview-cell"]')].map((cell) => {
        const box = cell.getBoundingClientRect();
        return { left: box.left, top: box.top, right: box.right, bottom: box.bottom, width: box.width };
      }),
      cutLabels: labels
        .filter((label) => {
          const box = label.getBoundingClientRect();
          const group = label.closest("section")!.getBoundingClientRect();
          // The text's own width, measured with a range: the box may be wide while its text runs past it.
          const range = document.createRange();
          range.selectNodeContents(label);
          const text = range.getBoundingClientRect();
          return label.scrollWidth > label.clientWidth + 0.5 || text.right > box.right + 0.5 || box.right > group.right + 0.5 || box.right > window.innerWidth || box.bottom > window.innerHeight;
        })
        .map((label) => label.textContent ?? ""),
      labelFonts: labels.map((label) => parseFloat(getComputedStyle(label).fontSize)),
      scroll: { width: scrolling.scrollWidth, height: scrolling.scrollHeight, clientWidth: scrolling.clientWidth, clientHeight: scrolling.clientHeight },
      legend: document.querySelector('[data-testid="display-overview-legend"]')?.textContent ?? "",
    };
  });
}

async function expectWholeFleet(page: Page, gpus: number, screen: { width: number; height: number }) {
  const where = `${gpus} GPUs at ${screen.width}×${screen.height}`;
  await expect(page.getByTestId("display-overview-cell")).toHaveCount(gpus, { timeout: 90_000 });
  await expect(page.getByTestId("display-overview")).toHaveAttribute("data-fits", "true");
  const report = await readOverview(page);
  expect(report.scroll.height, where).toBeLessThanOrEqual(report.scroll.clientHeight);
  expect(report.scroll.width, where).toBeLessThanOrEqual(report.scroll.clientWidth);
  for (const cell of report.cells) {
    expect(cell.left, where).toBeGreaterThanOrEqual(0);
    expect(cell.top, where).toBeGreaterThanOrEqual(0);
    expect(cell.right, where).toBeLessThanOrEqual(screen.width);
    expect(cell.bottom, where).toBeLessThanOrEqual(screen.height);
  }
  expect(report.cutLabels, where).toEqual([]);
  expect(Math.min(...report.labelFonts), where).toBeGreaterThanOrEqual(11);
  // The legend names every state a cell can be in, and the free-now strip stays on top.
  for (const label of ["Free", "Booked, idle", "Booked, in use", "In use, not booked", "Conflict", "Error", "Offline"]) expect(report.legend, where).toContain(label);
  await expect(page.getByTestId("display-summary")).toBeVisible();
  // On a wall screen every free model is named, or counted in "+N more models", inside the strip.
  if (screen.width >= 1920) {
    const freeNow = page.getByTestId("display-free-model").or(page.getByTestId("display-free-more")).first();
    await expect(freeNow).toBeVisible();
    const strip = (await page.getByTestId("display-summary").boundingBox())!;
    const chip = (await freeNow.boundingBox())!;
    expect(chip.x, where).toBeGreaterThanOrEqual(strip.x);
    expect(chip.x + chip.width, where).toBeLessThanOrEqual(strip.x + strip.width);
    expect(chip.y, where).toBeGreaterThanOrEqual(strip.y);
    expect(chip.y + chip.height, where).toBeLessThanOrEqual(strip.y + strip.height);
  }
  const legend = (await page.getByTestId("display-overview-legend").boundingBox())!;
  const firstLabel = (await page.getByTestId("display-overview-label").first().boundingBox())!;
  expect(firstLabel.y, where).toBeGreaterThanOrEqual(legend.y + legend.height);
  return report;
}

test.describe("the wall's overview layout with 160 GPUs", () => {
  test.describe.configure({ mode: "serial" });
  let server: DisplayServer;
  let token: string;

  test.beforeAll(async ({ fleet160 }) => {
    server = fleet160;
    token = createDisplayToken(server.dataDir, `wall-overview-160-${Date.now().toString(36)}`);
  });

  for (const screen of SCREENS) {
    test(`every unit in one viewport at ${screen.width}×${screen.height}`, async ({ browser }) => {
      test.setTimeout(120_000);
      const context = await browser.newContext({ viewport: screen, deviceScaleFactor: 1 });
      const page = await context.newPage();
      await page.goto(`${server.url}/display?token=${encodeURIComponent(token)}&layout=overview`);
      const report = await expectWholeFleet(page, 160, screen);
      // Read from across a room: on a wall, cells of at least 40 px at 1080p (twice that at 4K).
      if (screen.width >= 1920) expect(Math.min(...report.cells.map((cell) => cell.width))).toBeGreaterThanOrEqual((40 * screen.width) / 1920);
      // The overview never pages.
      await expect(page.getByTestId("display-page")).toHaveCount(0);
      await page.screenshot({ path: `${screens}/display-overview-160-${screen.width}x${screen.height}.png` });
      await context.close();
    });
  }

  test("the tiles layout is still the default", async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/display?token=${encodeURIComponent(token)}&layout=nonsense`);
    await expect(page.getByTestId("display-tile").first()).toBeVisible({ timeout: 90_000 });
    await expect(page.getByTestId("display-overview")).toHaveCount(0);
    await context.close();
  });
});

test.describe("1,000 GPUs", () => {
  test.describe.configure({ mode: "serial" });
  let server: DisplayServer;
  let token: string;
  const person = { username: `overview${Date.now().toString(36)}`, password: "pw-overview-long-enough" };

  test.beforeAll(async () => {
    test.setTimeout(480_000);
    server = await startDisplayServer({ gpus: 1000 });
    token = createDisplayToken(server.dataDir, "wall-overview-1000");
    addPerson(server.dataDir, person);
  });
  test.afterAll(async () => {
    await server?.dispose();
  });

  function signedInPage(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
    return signedInPageOn(browser, server.url, person, viewport);
  }

  for (const screen of SCREENS.slice(0, 2)) {
    test(`the wall's overview holds all of them at ${screen.width}×${screen.height}`, async ({ browser }) => {
      test.setTimeout(150_000);
      const context = await browser.newContext({ viewport: screen, deviceScaleFactor: 1 });
      const page = await context.newPage();
      await page.goto(`${server.url}/display?token=${encodeURIComponent(token)}&layout=overview`);
      await expectWholeFleet(page, 1000, screen);
      await page.screenshot({ path: `${screens}/display-overview-1000-${screen.width}x${screen.height}.png` });
      await context.close();
    });
  }

  test("the fleet page's overview scrolls inside its box, and the page keeps its layout", async ({ browser }) => {
    test.setTimeout(180_000);
    const page = await signedInPage(browser, { width: 1920, height: 1080 });
    await page.goto("/");
    const cells = page.getByTestId("overview-cell");
    await expect(cells).toHaveCount(1000, { timeout: 120_000 });
    const box = (await page.getByTestId("fleet-overview").boundingBox())!;
    // At most 60 % of the screen plus its padding, and no wider than the page.
    expect(box.height).toBeLessThanOrEqual(1080 * 0.6 + 40);
    expect(box.x + box.width).toBeLessThanOrEqual(1920);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(1920);
    // The host cards follow right under it.
    const firstHost = (await page.locator("section[aria-label^='Host ']").first().boundingBox())!;
    expect(firstHost.y).toBeGreaterThanOrEqual(box.y + box.height);
    await page.screenshot({ path: `${screens}/fleet-overview-1000-1920x1080.png` });
    // Its last host is reached by scrolling the box.
    const hosts = page.getByTestId("fleet-overview-hosts");
    await hosts.evaluate((list) => list.scrollTo(0, list.scrollHeight));
    await expect(cells.last()).toBeInViewport();
    await page.getByTestId("fleet-overview").screenshot({ path: `${screens}/fleet-overview-1000-scrolled-1920x1080.png` });
    await page.context().close();
  });

  test("on a phone the dense table fits, or scrolls with its GPU column fixed", async ({ browser }) => {
    test.setTimeout(180_000);
    const page = await signedInPage(browser, { width: 390, height: 844 });
    await page.goto("/");
    const row = page.getByTestId("fleet-row").first();
    await expect(row).toBeVisible({ timeout: 120_000 });
    await row.scrollIntoViewIfNeeded();
    const table = row.locator("xpath=ancestor::div[contains(@class,'overflow-x-auto')][1]");
    const sideways = () =>
      table.evaluate((box) => {
        box.scrollLeft = 0;
        const unit = box.querySelector<HTMLElement>('[data-testid="row-unit"]')!;
        const before = unit.getBoundingClientRect().left;
        box.scrollLeft = box.scrollWidth;
        return { overflows: box.scrollWidth > box.clientWidth, before, after: unit.getBoundingClientRect().left, boxLeft: box.getBoundingClientRect().left };
      });
    // At 390 px the table fits; on the narrowest phones (320 px) it scrolls inside its box, and its GPU column stays where it was.
    expect((await sideways()).overflows).toBe(false);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${screens}/fleet-dense-1000-390x844.png` });
    await page.setViewportSize({ width: 320, height: 700 });
    await row.scrollIntoViewIfNeeded();
    const narrow = await sideways();
    expect(narrow.overflows).toBe(true);
    expect(narrow.after).toBeCloseTo(narrow.before, 0);
    expect(narrow.after).toBeGreaterThanOrEqual(narrow.boxLeft - 0.5);
    await page.screenshot({ path: `${screens}/fleet-dense-1000-320x700-scrolled.png` });
    await page.context().close();
  });
});
