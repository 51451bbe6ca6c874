import { expect, test, type Page } from "@playwright/test";
import { member, signIn } from "./helpers";

/** Issue 27: on a 390×844 phone, the booking form's selects and the header and its menu stay within the screen. */

const PHONE = { width: 390, height: 844 };

async function outside(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((elements, width) => {
    const out: string[] = [];
    for (const element of elements) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.left < -0.5 || box.right > width + 0.5) out.push(`${element.tagName.toLowerCase()}[${element.getAttribute("name") ?? element.getAttribute("aria-label") ?? element.id}] ${Math.round(box.left)}–${Math.round(box.right)}`);
    }
    return out;
  }, PHONE.width);
}

test("the booking form's selects, the header and its menu fit a 390×844 phone", async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize(PHONE);
  await signIn(page, (await member()));
  await page.goto("/reserve");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.locator("main select").first()).toBeVisible({ timeout: 20_000 });

  expect(await outside(page, "main select, main input, main button, main textarea")).toEqual([]);
  expect(await outside(page, "header, header *")).toEqual([]);
  // Nothing makes the page wider than the screen (a sideways scroll would cut the selects off).
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await page.screenshot({ path: "test-results/screens/phone-reserve-390x844.png", fullPage: true });

  await page.getByRole("button", { name: "Menu" }).click();
  const menu = page.getByRole("navigation", { name: "Main" }).last();
  await expect(menu).toBeVisible();
  expect(await outside(page, "header, header *, nav, nav *")).toEqual([]);
  await page.screenshot({ path: "test-results/screens/phone-menu-390x844.png" });
});
