import { expect, test, type Page } from "@playwright/test";
import { E2E_PORT } from "../playwright.config";
import { createDisplayToken, startDisplayServer, type DisplayServer } from "./display-server";

/**
 * The wall's words at the sizes it is made for, on the demo fleet and on a
 * 160-GPU one: the "FREE NOW" strip names every model or says how many more
 * it had no room for, and no tile label is cut (measured in the browser: a
 * label whose text is wider than its box is one the browser cut with "…").
 */

const SCREENS = [
  { width: 1920, height: 1080 },
  { width: 3840, height: 2160 },
];
const ROTATE_SECONDS = 5;

interface Words {
  page: string;
  tiles: string[];
  /** "FREE NOW" chips outside the strip's box (wrapped onto a hidden line). */
  hiddenChips: string[];
  chipTotals: number;
  moreText: string | null;
  /** Labels whose text does not fit their box, or that carry an ellipsis. */
  cut: string[];
}

async function readWords(page: Page): Promise<Words> {
  return page.evaluate(() => {
    const strip = document.querySelector('[data-testid="display-summary"]')!.getBoundingClientRect();
    const chips = [...document.querySelectorAll<HTMLElement>('[data-testid="display-free-model"], [data-testid="display-free-more"]')];
    const more = document.querySelector('[data-testid="display-free-more"]')?.textContent ?? null;
    const labels = [
      ...document.querySelectorAll<HTMLElement>('[data-testid="display-tile-unit"], [data-testid="display-tile-state"], [data-testid="display-booker-name"], [data-testid="display-memory"]'),
    ];
    return {
      page: document.querySelector('[data-testid="display"]')?.getAttribute("data-page") ?? "0",
      tiles: [...document.querySelectorAll<HTMLElement>('[data-testid="display-tile"]')].map((tile) => tile.dataset.uuid ?? ""),
      hiddenChips: chips
        .filter((chip) => {
          const box = chip.getBoundingClientRect();
          return box.top < strip.top - 0.5 || box.bottom > strip.bottom + 0.5 || box.right > strip.right + 0.5;
        })
        .map((chip) => chip.textContent ?? ""),
      chipTotals: [...document.querySelectorAll('[data-testid="display-free-model"]')].reduce((sum, chip) => sum + Number(/\/\s*(\d+)/.exec(chip.textContent ?? "")?.[1] ?? 0), 0),
      moreText: more,
      cut: labels
        .filter((label) => label.scrollWidth > label.clientWidth + 0.5 || (label.textContent ?? "").includes("…"))
        .map((label) => `${label.closest('[data-testid="display-tile"]')?.getAttribute("aria-label")}: "${label.textContent}" (${label.scrollWidth} > ${label.clientWidth})`),
    };
  });
}

// Servers of its own beside the shared one, on ports of this run's range.
for (const fleet of [{ name: "demo", gpus: undefined, port: E2E_PORT + 40 }, { name: "160", gpus: 160, port: E2E_PORT + 41 }]) {
  test.describe(`the wall's words on the ${fleet.name} fleet`, () => {
    test.describe.configure({ mode: "serial" });
    let server: DisplayServer;
    let token: string;

    test.beforeAll(async () => {
      test.setTimeout(360_000);
      server = await startDisplayServer({ gpus: fleet.gpus, port: fleet.port });
      token = createDisplayToken(server.dataDir, `words-${fleet.name}`);
    });

    test.afterAll(async () => {
      await server?.dispose();
    });

    for (const screen of SCREENS) {
      test(`at ${screen.width}×${screen.height}: every model on the strip or in its "+N more", no label cut`, async ({ browser }) => {
        test.setTimeout(120_000);
        const context = await browser.newContext({ viewport: screen, deviceScaleFactor: 1 });
        const page = await context.newPage();
        await page.goto(`${server.url}/display?token=${encodeURIComponent(token)}&rotate=${ROTATE_SECONDS}`);
        await expect(page.getByTestId("display-tile").first()).toBeVisible();
        await expect(page.getByTestId("display-updated")).toContainText(/\d\d:\d\d:\d\d/);
        // The strip settles in a frame or two (one model fewer per frame until the rest fit).
        await expect.poll(async () => (await readWords(page)).hiddenChips).toEqual([]);

        const seen = new Set<string>();
        const pagesSeen = new Set<string>();
        let words = await readWords(page);
        const deadline = Date.now() + 4 * ROTATE_SECONDS * 1000;
        while (Date.now() < deadline) {
          words = await readWords(page);
          if (!pagesSeen.has(words.page)) {
            await page.screenshot({ path: `test-results/screens/wall-words-${fleet.name}-${screen.width}x${screen.height}-page${words.page}.png` });
            pagesSeen.add(words.page);
            expect(words.hiddenChips, `page ${words.page}`).toEqual([]);
            expect(words.cut, `page ${words.page}`).toEqual([]);
            for (const uuid of words.tiles) seen.add(uuid);
          }
          if (!(await page.getByTestId("display-page").count())) break;
          await page.waitForTimeout(500);
        }
        // Every GPU of the fleet is counted on the strip: in a model's chip or in "+N more models (F of T free)".
        const moreTotal = Number(/of (\d+) free/.exec(words.moreText ?? "")?.[1] ?? 0);
        expect(words.chipTotals + moreTotal).toBe(seen.size);
        if (fleet.gpus) expect(seen.size).toBe(fleet.gpus);
        await context.close();
      });
    }
  });
}
