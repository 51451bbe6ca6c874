import { expect, test } from "@playwright/test";
import { member, signIn } from "./helpers";

/**
 * The schedule's week view: days across, hours down, a line at now in
 * today's column; dragging over free time of a GPU opens the booking form
 * with that window filled in.
 */

const HOST = "sim-4090-a";

test("dragging over free time of a GPU on the week view opens the form with that window", async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, (await member()));
  await page.goto(`/schedule?view=week&host=${HOST}`);
  await expect(page.getByTestId("week-view")).toBeVisible();
  await expect(page.getByTestId("week-now")).toHaveCount(1);
  await page.screenshot({ path: "test-results/screens/schedule-week-1440x900.png", fullPage: true });

  // Four days ahead, GPU 1, 10:00 to 12:00: a window no other spec books.
  const cell = page.getByTestId("week-cell-4-1");
  await cell.scrollIntoViewIfNeeded();
  const box = (await cell.boundingBox())!;
  const at = (hours: number) => box.y + (hours / 24) * box.height;
  await page.mouse.move(box.x + box.width / 2, at(10.1));
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2, at(11), { steps: 4 });
  await page.mouse.move(box.x + box.width / 2, at(11.6), { steps: 4 });
  await expect(page.getByTestId("week-selection")).toHaveText("10:00–12:00");
  await page.mouse.up();

  await expect(page).toHaveURL(/\/reserve\?/);
  const url = new URL(page.url());
  expect(url.searchParams.get("host")).toBe(HOST);
  expect(url.searchParams.get("gpus")).toBe("1");
  const start = Date.parse(url.searchParams.get("start")!);
  const end = Date.parse(url.searchParams.get("end")!);
  expect(end - start).toBe(2 * 3600_000);
  // The form shows that window in the viewer's zone.
  const expected = await page.evaluate(
    ([s, e]) => {
      const local = (ms: number) => {
        const d = new Date(ms);
        const pad = (v: number) => String(v).padStart(2, "0");
        return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
      };
      return { start: local(s), end: local(e), startHour: new Date(s).getHours() };
    },
    [start, end],
  );
  expect(expected.startHour).toBe(10);
  await expect(page.getByLabel("Start time")).toHaveValue(expected.start);
  await expect(page.getByLabel("End time")).toHaveValue(expected.end);
});

test("the week view of one GPU, and on a phone it scrolls inside its own box", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, (await member()));
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/schedule?view=week&host=${HOST}&gpu=0`);
  await expect(page.getByTestId("week-cell-0-0")).toBeVisible();
  await expect(page.getByTestId("week-cell-0-1")).toHaveCount(0);
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: "test-results/screens/schedule-week-390x844.png" });
});
