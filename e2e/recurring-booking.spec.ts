import { expect, test } from "@playwright/test";
import { createUser, gpudesk, releaseEverything, signIn, tokenFor } from "./helpers";

/**
 * A weekly series from the booking form: every day at the same time for two
 * weeks, each day booked and checked like a single booking; the one day
 * someone else already holds is refused and listed, the others are kept.
 */

const HOST = "sim-4090-a";
const GPU = 3;
const DAY = 24 * 3600_000;

test("a recurring booking books every day of the series and lists the one refused", async ({ page, request }) => {
  // Fourteen bookings in a row, each its own transaction, on a loaded machine: a deadline that only bounds a hang.
  test.setTimeout(300_000);
  const teacher = await createUser("series");
  const other = await createUser("inway");
  const tokens = [(await tokenFor(teacher)), (await tokenFor(other))];
  try {
    // Thirteen days ahead at a whole hour, for three hours: a window no other spec books.
    const first = Math.floor((Date.now() + 13 * DAY) / 3600_000) * 3600_000;
    // Someone else holds the series' second day, for an hour in the middle of it.
    const blocked = await request.post("/api/v1/reservations", {
      headers: { authorization: `Bearer ${tokens[1]}` },
      data: { host: HOST, gpus: [GPU], startsAt: new Date(first + DAY + 3600_000).toISOString(), durationMinutes: 60, purpose: "in the way" },
    });
    expect(blocked.status(), await blocked.text()).toBe(201);

    await signIn(page, teacher);
    const params = new URLSearchParams({ host: HOST, gpus: String(GPU), start: new Date(first).toISOString(), end: new Date(first + 3 * 3600_000).toISOString(), purpose: "course" });
    await page.goto(`/reserve?${params}`);
    await page.getByLabel("Repeat weekly").check();
    // Every day of the week, so that the series does not depend on which weekday today is.
    for (const day of ["Sat", "Sun"]) await page.getByRole("group", { name: "Weekdays" }).getByLabel(day).check();
    await page.getByLabel("For", { exact: true }).fill("2");
    await page.screenshot({ path: "test-results/screens/reserve-repeat-1440x900.png", fullPage: true });
    await page.getByRole("button", { name: "Book", exact: true }).click();

    await expect(page.getByRole("heading", { name: "Booked 13 of 14" })).toBeVisible({ timeout: 180_000 });
    await expect(page.getByTestId("series-booked")).toHaveCount(13);
    const refused = page.getByTestId("series-refused");
    await expect(refused).toHaveCount(1);
    await page.screenshot({ path: "test-results/screens/reserve-series-result-1440x900.png", fullPage: true });

    const mine = (await (await request.get("/api/v1/reservations?state=current", { headers: { authorization: `Bearer ${tokens[0]}` } })).json()) as {
      reservations: { startsAt: string; purpose: string }[];
    };
    const starts = mine.reservations.filter((booking) => booking.purpose === "course").map((booking) => Date.parse(booking.startsAt));
    expect(starts).toHaveLength(13);
    expect(starts).not.toContain(first + DAY);
    expect(starts).toContain(first);
  } finally {
    for (const token of tokens) await releaseEverything(request, token);
  }
});
