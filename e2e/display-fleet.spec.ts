import { expect, test, type Page } from "@playwright/test";
import { createDisplayToken, startDisplayServer, type DisplayServer } from "./display-server";

/**
 * The wall display on the screens it is made for, with fleets the shared
 * e2e server does not run: 32 GPUs (one page) and 96 (pages that rotate).
 * Each fleet gets a server of its own for its tests.
 */

const SCREENS = [
  { width: 1920, height: 1080, scale: 1 },
  { width: 3840, height: 2160, scale: 2 },
];
/** At 1080p, times the scale the display chose: a 4K screen shows a fleet that fits twice as large, a larger one at 1080p sizes. */
const MIN_TEXT_PX = 14;
const MIN_UTILIZATION_PX = 28;
const ROTATE_SECONDS = 5;

interface PageReport {
  page: string | null;
  /** The scale the display chose (lib/display-layout.ts): the screen's own, or less where that would page. */
  scale: number;
  viewport: { width: number; height: number };
  scroll: { width: number; height: number; clientWidth: number; clientHeight: number };
  tiles: { uuid: string; left: number; top: number; right: number; bottom: number }[];
  utilizationFonts: number[];
  textFonts: number[];
  /** Utilization numbers that stick out of their tile. */
  clippedNumbers: number;
}

/** Everything the checks need, read in one go so that a page turn cannot fall between two reads. */
async function readPage(page: Page): Promise<PageReport> {
  return page.evaluate(() => {
    const fontOf = (selector: string) =>
      [...document.querySelectorAll(selector)].filter((el) => (el.textContent ?? "").trim().length > 0).map((el) => parseFloat(getComputedStyle(el).fontSize));
    const scrolling = document.scrollingElement ?? document.documentElement;
    const tileElements = [...document.querySelectorAll<HTMLElement>('[data-testid="display-tile"]')];
    return {
      page: document.querySelector('[data-testid="display"]')?.getAttribute("data-page") ?? null,
      scale: Number(document.querySelector('[data-testid="display"]')?.getAttribute("data-scale") ?? 1),
      viewport: { width: window.innerWidth, height: window.innerHeight },
      scroll: {
        width: scrolling.scrollWidth,
        height: scrolling.scrollHeight,
        clientWidth: scrolling.clientWidth,
        clientHeight: scrolling.clientHeight,
      },
      tiles: tileElements.map((el) => {
        const box = el.getBoundingClientRect();
        return { uuid: el.dataset.uuid ?? "", left: box.left, top: box.top, right: box.right, bottom: box.bottom };
      }),
      utilizationFonts: fontOf('[data-testid="display-util"]'),
      textFonts: fontOf(
        '[data-testid="display-tile-state"], [data-testid="display-memory"], [data-testid="display-booker"], [data-testid="display-host-label"] *, [data-testid="display-summary"] *',
      ),
      clippedNumbers: tileElements.filter((tile) => {
        const number = tile.querySelector('[data-testid="display-util"]')?.getBoundingClientRect();
        const box = tile.getBoundingClientRect();
        return !number || number.right > box.right + 0.5 || number.bottom > box.bottom + 0.5 || number.left < box.left - 0.5 || number.top < box.top - 0.5;
      }).length,
    };
  });
}

function expectFits(report: PageReport, screen: (typeof SCREENS)[number]) {
  const where = `${screen.width}×${screen.height}, page ${report.page}`;
  // No scroll bars: nothing wider or taller than the window, and the window's full width is the page's.
  expect(report.scroll.width, where).toBeLessThanOrEqual(report.scroll.clientWidth);
  expect(report.scroll.height, where).toBeLessThanOrEqual(report.scroll.clientHeight);
  expect(report.scroll.clientWidth, where).toBe(report.viewport.width);
  expect(report.scroll.clientHeight, where).toBe(report.viewport.height);

  expect(report.tiles.length, where).toBeGreaterThan(0);
  for (const tile of report.tiles) {
    expect(tile.left, `${where}: ${tile.uuid}`).toBeGreaterThanOrEqual(0);
    expect(tile.top, `${where}: ${tile.uuid}`).toBeGreaterThanOrEqual(0);
    expect(tile.right, `${where}: ${tile.uuid}`).toBeLessThanOrEqual(screen.width);
    expect(tile.bottom, `${where}: ${tile.uuid}`).toBeLessThanOrEqual(screen.height);
  }
  // Never below a 1080p screen's minimum; at the screen's own scale where the fleet fits at it.
  expect(report.scale, where).toBeGreaterThanOrEqual(1);
  expect(report.scale, where).toBeLessThanOrEqual(screen.scale);
  expect(Math.min(...report.utilizationFonts), where).toBeGreaterThanOrEqual(MIN_UTILIZATION_PX * report.scale - 0.5);
  expect(Math.min(...report.textFonts), where).toBeGreaterThanOrEqual(MIN_TEXT_PX * report.scale - 0.5);
  expect(report.clippedNumbers, where).toBe(0);
}

for (const gpus of [32, 96]) {
  test.describe(`wall display with ${gpus} simulated GPUs`, () => {
    test.describe.configure({ mode: "serial" });
    let server: DisplayServer;
    let token: string;

    test.beforeAll(async () => {
      test.setTimeout(360_000);
      server = await startDisplayServer({ gpus });
      token = createDisplayToken(server.dataDir, `wall-${gpus}`);
    });

    test.afterAll(async () => {
      await server?.dispose();
    });

    for (const screen of SCREENS) {
      test.describe(`on ${screen.width}×${screen.height}`, () => {
        test.use({ viewport: { width: screen.width, height: screen.height }, deviceScaleFactor: 1 });

        test(`shows every GPU readable, without scrolling`, async ({ page }) => {
          test.setTimeout(90_000);
          await page.goto(`${server.url}/display?token=${encodeURIComponent(token)}&rotate=${ROTATE_SECONDS}`);
          await expect(page.getByTestId("display-tile").first()).toBeVisible();
          await expect(page.getByTestId("display-stale-banner")).toHaveCount(0);
          await expect(page.getByTestId("display-updated")).toContainText(/\d\d:\d\d:\d\d/);
          // The display scope carries the fleet's open-alert count (and nothing about the alerts themselves).
          await expect(page.getByTestId("display-alerts")).toContainText(/Open alerts \d+/);

          const seen = new Set<string>();
          const pagesSeen = new Set<string>();
          const deadline = Date.now() + 4 * ROTATE_SECONDS * 1000;
          while (seen.size < gpus && Date.now() < deadline) {
            const report = await readPage(page);
            const pageName = report.page ?? "0";
            if (!pagesSeen.has(pageName)) {
              const path = `test-results/screens/display-${gpus}-${screen.width}x${screen.height}-page${pageName}.png`;
              await page.screenshot({ path });
              // A page turn between the read and the screenshot: try again at the next visit of this page.
              if ((await page.getByTestId("display").getAttribute("data-page")) !== report.page) continue;
              pagesSeen.add(pageName);
              expectFits(report, screen);
              for (const tile of report.tiles) {
                expect(seen.has(tile.uuid), `${tile.uuid} on two pages`).toBe(false);
                seen.add(tile.uuid);
              }
            }
            await page.waitForTimeout(500);
          }
          expect(seen.size).toBe(gpus);

          // A 4K screen holds four times the GPUs of a 1080p one (lib/display-layout.ts).
          if (gpus <= 64 || (screen.scale === 2 && gpus <= 160)) {
            expect(pagesSeen.size).toBe(1);
            await expect(page.getByTestId("display-page")).toHaveCount(0);
          } else {
            expect(pagesSeen.size).toBeGreaterThan(1);
            await expect(page.getByTestId("display-page")).toContainText(new RegExp(`Page \\d / ${pagesSeen.size}`));
          }
          // The summary counts the whole fleet, not one page (models with no room on the strip in its "+N more models (F of T free)").
          const counted = await page.getByTestId("display-free-model").allInnerTexts();
          const more = await page.getByTestId("display-free-more").allInnerTexts();
          const total = counted.reduce((sum, text) => sum + Number(/\/\s*(\d+)/.exec(text)?.[1] ?? 0), 0) + more.reduce((sum, text) => sum + Number(/of (\d+) free/.exec(text)?.[1] ?? 0), 0);
          expect(total).toBe(gpus);
        });
      });
    }
  });
}
