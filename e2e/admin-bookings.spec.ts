import { expect, test } from "@playwright/test";
import { E2E_ORIGIN, admin, createUser, signIn } from "./helpers";

/**
 * /reservations for an admin: everyone's current bookings, each with Cancel
 * (a reason is required) and Shorten (a new end and a reason); the booker
 * sees who changed it and why.
 */

test("an admin shortens and cancels a member's booking with a reason the member sees", async ({ browser }) => {
  test.setTimeout(120_000);
  const bookedBy = await createUser("held");
  const boss = (await admin());
  const memberContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const adminContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const memberPage = await memberContext.newPage();
  const adminPage = await adminContext.newPage();
  await signIn(memberPage, bookedBy);
  await signIn(adminPage, boss);

  // Tomorrow, at an hour of its own, on a GPU nobody else in the suite books then: the booking is this test's alone.
  const start = new Date(Date.now() + 26 * 3_600_000 + Math.floor(Math.random() * 600) * 60_000);
  start.setUTCSeconds(0, 0);
  const booked = await memberPage.request.post("/api/v1/reservations", {
    data: { host: "sim-4090-a", gpus: [1], startsAt: start.toISOString(), durationMinutes: 180, purpose: "admin page e2e" },
    headers: { origin: E2E_ORIGIN },
  });
  expect(booked.status(), await booked.text()).toBe(201);
  const { id } = (await booked.json()) as { id: string };
  try {
    await adminPage.goto("/reservations");
    const section = adminPage.getByRole("region", { name: /Everyone's current bookings/ });
    const row = section.getByRole("row", { name: new RegExp(`${bookedBy.username}.*GPU 1 on sim-4090-a`) });
    await expect(row).toBeVisible();
    await expect(row).toContainText("admin page e2e");

    // Shorten: a reason is required, and what was typed stays.
    await row.getByRole("button", { name: "Shorten" }).click();
    const dialog = adminPage.getByRole("dialog", { name: /Shorten/ });
    await expect(dialog).toBeVisible();
    const newEnd = new Date(start.getTime() + 60 * 60_000);
    const local = await adminPage.evaluate((ms) => {
      const d = new Date(ms);
      const pad = (n: number) => String(n).padStart(2, "0");
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
    }, newEnd.getTime());
    await dialog.getByLabel("New end").fill(local);
    await dialog.getByRole("button", { name: "Shorten" }).click();
    await expect(dialog.getByText(/Tell .* why/)).toBeVisible();
    await dialog.getByLabel("Reason").fill("maintenance window at that time");
    await dialog.getByRole("button", { name: "Shorten" }).click();
    await expect(dialog).toBeHidden();
    await expect
      .poll(async () => ((await (await memberPage.request.get(`/api/v1/reservations/${id}`)).json()) as { endsAt: string }).endsAt)
      .toBe(newEnd.toISOString());
    await adminPage.screenshot({ path: "test-results/screens/admin-reservations.png", fullPage: true });

    // The booker sees who shortened it and why.
    await memberPage.goto("/reservations");
    await expect(memberPage.getByText(/Shortened by .*: maintenance window at that time/)).toBeVisible();

    // Cancel, with a reason; the booking leaves the admin's list and the booker sees why.
    await adminPage.reload();
    await row.getByRole("button", { name: "Cancel booking" }).click();
    const cancel = adminPage.getByRole("dialog", { name: /Cancel .* booking/ });
    await cancel.getByLabel("Reason").fill("host retired");
    await cancel.getByRole("button", { name: "Cancel booking" }).click();
    await expect(cancel).toBeHidden();
    await expect(row).toHaveCount(0);
    await memberPage.reload();
    await expect(memberPage.getByText(/Cancelled by .*: host retired/)).toBeVisible();
  } finally {
    // Gone already when the test passed; a failure part-way leaves nothing behind.
    await memberPage.request.post(`/api/v1/reservations/${id}/release`, { headers: { origin: E2E_ORIGIN } });
    await memberContext.close();
    await adminContext.close();
  }
});

test("a member's /reservations has no list of other people's bookings", async ({ page }) => {
  await signIn(page, await createUser("plain"));
  await page.goto("/reservations");
  await expect(page.getByRole("heading", { name: "My bookings" })).toBeVisible();
  await expect(page.getByRole("region", { name: /Everyone's current bookings/ })).toHaveCount(0);
});
