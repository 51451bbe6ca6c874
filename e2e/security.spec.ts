import { expect, test } from "@playwright/test";
import { E2E_LAN_ORIGIN } from "../playwright.config";
import { member } from "./helpers";

test("a member signs in over plain HTTP on a LAN name (not localhost) and stays signed in", async ({ page }) => {
  const user = member();
  await page.goto(`${E2E_LAN_ORIGIN}/gpus/GPU-anything`);
  await expect(page).toHaveURL(`${E2E_LAN_ORIGIN}/login?next=%2Fgpus%2FGPU-anything`);
  await page.getByLabel("Username").fill(user.username);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${E2E_LAN_ORIGIN}/gpus/GPU-anything`);
  const cookies = await page.context().cookies(E2E_LAN_ORIGIN);
  const session = cookies.find((cookie) => cookie.name.endsWith("session_token"));
  expect(session).toMatchObject({ name: "gpudesk.session_token", secure: false, httpOnly: true });
  await page.goto(`${E2E_LAN_ORIGIN}/`);
  await expect(page).toHaveURL(`${E2E_LAN_ORIGIN}/`);
});

for (const next of ["/%5Cevil.example/x", "/%09/evil.example", "//evil.example"]) {
  test(`after sign-in, next=${next} stays on the site`, async ({ page }) => {
    const user = member();
    await page.goto(`${E2E_LAN_ORIGIN}/login?next=${next}`);
    await page.getByLabel("Username").fill(user.username);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${E2E_LAN_ORIGIN}/`);
  });
}

test("a malformed percent-encoding answers the JSON 400 (API) or the not-found page", async ({ page, request }) => {
  const api = await request.get("/api/v1/reservations/%ff");
  expect(api.status()).toBe(400);
  expect((await api.json()).error.code).toBe("bad_request");
  const response = await page.goto(`${E2E_LAN_ORIGIN}/gpus/%ff`);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
});

test("pages may not be framed (except the wall display), and say nosniff and a referrer policy", async ({ request }) => {
  const home = await request.get("/login");
  expect(home.headers()["x-frame-options"]).toBe("DENY");
  expect(home.headers()["x-content-type-options"]).toBe("nosniff");
  expect(home.headers()["referrer-policy"]).toBe("same-origin");
  const display = await request.get("/display");
  expect(display.headers()["x-frame-options"]).toBeUndefined();
  expect(display.headers()["x-content-type-options"]).toBe("nosniff");
});

test("anonymous /api/health shows neither the hostname nor the process id", async ({ request }) => {
  const health = await request.get("/api/health");
  expect(health.status()).toBe(200);
  const body = await health.json();
  expect(body.ok).toBe(true);
  expect(body.cluster.instance).toMatch(/^[0-9a-f]{12}$/);
});
