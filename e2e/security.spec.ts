import { expect, test } from "@playwright/test";
import { E2E_LAN_ORIGIN } from "../playwright.config";
import { E2E_ORIGIN, member, signIn } from "./helpers";

test("a member signs in over plain HTTP on a LAN name (not localhost) and stays signed in", async ({ page }) => {
  const user = (await member());
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
    const user = (await member());
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

test("an unknown /api/v1 path answers the API's JSON 404, known routes still answer, pages keep the HTML 404", async ({ request }) => {
  for (const [method, path] of [["GET", "/api/v1/no-such-thing"], ["POST", "/api/v1/hosts/some-id/no-such-action"], ["DELETE", "/api/v1/a/b/c"]] as const) {
    const response = await request.fetch(path, { method, headers: { origin: E2E_ORIGIN } });
    expect(response.status(), `${method} ${path}`).toBe(404);
    expect(response.headers()["content-type"]).toContain("application/json");
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: "not_found", message: expect.stringContaining(path) });
  }
  expect((await request.get("/api/v1/openapi.json")).status()).toBe(200);
  expect((await request.get("/api/v1/me")).status()).toBe(401);
  const page = await request.get("/no-such-page");
  expect(page.status()).toBe(404);
  expect(page.headers()["content-type"]).toContain("text/html");
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

test("a member's personal webhook to the cloud metadata address is refused next to the URL field", async ({ page }) => {
  await signIn(page, (await member()));
  await page.goto("/alerts/notifications");
  const form = page.getByRole("form", { name: "Add a webhook" });
  await form.getByLabel("URL").fill("http://169.254.169.254/latest/meta-data/");
  await form.getByRole("button", { name: "Add webhook" }).click();
  await expect(form.getByText("private, link-local or unspecified address")).toBeVisible();
  await form.screenshot({ path: test.info().outputPath("webhook-refused.png") });
  const mine = await page.request.get("/api/v1/webhooks");
  expect(((await mine.json()).webhooks as { url: string }[]).some((hook) => hook.url.includes("169.254"))).toBe(false);
});

test("over real HTTP: repeated wrong sign-ins for one account get 429, e-mail sign-in and update-user are closed", async ({ page, request }) => {
  const username = `ghost${Date.now().toString(36)}`;
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 7; attempt += 1) {
    const answer = await request.post("/api/auth/sign-in/username", { data: { username, password: "wrong-password" }, headers: { origin: E2E_ORIGIN } });
    statuses.push(answer.status());
  }
  expect(statuses.at(-1)).toBe(429);
  const email = await request.post("/api/auth/sign-in/email", { data: { email: `${username}@users.gpudesk.invalid`, password: "wrong-password" }, headers: { origin: E2E_ORIGIN } });
  expect(email.status()).toBe(404);

  await signIn(page, (await member()));
  const rename = await page.request.post("/api/auth/update-user", { data: { name: "Someone Else" }, headers: { origin: E2E_ORIGIN } });
  expect(rename.status()).toBe(404);
  const forgedSignOut = await page.request.post("/api/auth/sign-out", { data: {}, headers: { origin: `http://127.0.0.1:${Number(new URL(E2E_ORIGIN).port) + 1}` } });
  expect(forgedSignOut.status()).toBe(403);
  expect((await page.request.get("/api/v1/me")).status()).toBe(200);
});
