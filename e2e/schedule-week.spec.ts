import { expect, test } from "@playwright/test";
import { createUser, member, signIn, tokenFor } from "./helpers";

/**
 * The schedule's week view: days across, hours down, a line at now in
 * today's column; dragging over free time of a GPU opens the booking form
 * with that window filled in.
 */

const HOST = "sim-4090-a";
/** Eight GPUs side by side. */
const WIDE_HOST = "sim-h100-a";

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

/**
 * The zone in which the browser's clock reads about 20:00 now: late enough
 * that a week opened at midnight has "now" below the fold of a phone.
 */
function eveningZone(): string {
  const offset = ((20 - new Date().getUTCHours() + 36) % 24) - 12;
  // Etc/GMT zones carry the sign the other way round: Etc/GMT-5 is UTC+5.
  return offset === 0 ? "Etc/GMT" : `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`;
}

test("on a phone the week opens at now, not at midnight", async ({ browser }) => {
  test.setTimeout(90_000);
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, timezoneId: eveningZone() });
  const page = await context.newPage();
  await signIn(page, await member());
  await page.goto(`/schedule?view=week&host=${HOST}`);
  const now = page.getByTestId("week-now");
  await expect(now).toHaveCount(1);
  expect(await page.evaluate(() => new Date().getHours())).toBeGreaterThanOrEqual(19);
  // Without any scrolling by the person: the line at now is on the screen and inside the week's own box.
  await expect.poll(async () => (await now.boundingBox())?.y ?? -1).toBeGreaterThan(0);
  const line = (await now.boundingBox())!;
  const week = (await page.getByTestId("week-view").boundingBox())!;
  expect(line.y + line.height).toBeLessThanOrEqual(844);
  expect(line.y).toBeGreaterThanOrEqual(week.y);
  expect(line.y).toBeLessThanOrEqual(week.y + week.height);
  await page.screenshot({ path: "test-results/screens/schedule-week-now-390x844.png" });
  await context.close();
});

test("with more than four GPUs side by side, each booking still names its person (initials, the full name on hover)", async ({ page, request }) => {
  test.setTimeout(90_000);
  const person = await createUser("weekinitials", { name: "Wanda Eve Kowalski" });
  const token = await tokenFor(person);
  let madeId: string | null = null;
  try {
    // Five days ahead, 03:00 UTC, an hour on GPU 7 of the 8-GPU host: a window no other spec books.
    const day = new Date(Date.now() + 5 * 86_400_000);
    const startsAt = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 3)).toISOString();
    const made = await request.post("/api/v1/reservations", {
      headers: { authorization: `Bearer ${token}` },
      data: { host: WIDE_HOST, gpus: [7], startsAt, durationMinutes: 60, purpose: "week initials" },
    });
    expect(made.status(), await made.text()).toBe(201);
    madeId = ((await made.json()) as { id: string }).id;
    await page.setViewportSize({ width: 1920, height: 1080 });
    await signIn(page, person);
    await page.goto(`/schedule?view=week&host=${WIDE_HOST}`);
    const block = page.getByTestId("week-booking").filter({ has: page.getByText("WK", { exact: true }) });
    await expect(block).toHaveCount(1);
    await expect(block).toHaveAttribute("title", /^Wanda Eve Kowalski: week initials/);
    // Every booking of the week says someone, not an empty coloured block.
    for (const text of await page.getByTestId("week-booking").allInnerTexts()) expect(text.trim()).not.toBe("");
    await block.scrollIntoViewIfNeeded();
    await page.screenshot({ path: "test-results/screens/schedule-week-8gpus-1920x1080.png" });
  } finally {
    if (madeId) await request.post(`/api/v1/reservations/${madeId}/cancel`, { headers: { authorization: `Bearer ${token}` } });
  }
});
