import { expect, test } from "@playwright/test";
import { E2E_ORIGIN, admin, createUser, member, signIn } from "./helpers";

test("anonymous visitors are sent to the sign-in page and come back after signing in", async ({ page }) => {
  const user = member();
  await page.goto("/gpus/GPU-anything");
  await expect(page).toHaveURL(/\/login\?next=/);
  await page.getByLabel("Username").fill(user.username);
  await page.getByLabel("Password").fill("wrong password!");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Wrong username or password.")).toBeVisible();
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/gpus\/GPU-anything$/);
  await page.screenshot({ path: "test-results/screens/after-sign-in.png" });
});

test("a wrong password and an unknown user get the same answer", async ({ request }) => {
  const user = member();
  const wrong = await request.post("/api/auth/sign-in/username", {
    data: { username: user.username, password: "not the password" },
    headers: { origin: E2E_ORIGIN },
  });
  const unknown = await request.post("/api/auth/sign-in/username", {
    data: { username: "nobodyhere", password: "not the password" },
    headers: { origin: E2E_ORIGIN },
  });
  expect(wrong.status()).toBe(unknown.status());
  expect((await wrong.json()).message).toBe((await unknown.json()).message);
});

test("an admin creates a member in /admin/users; the member makes a token, uses it, revokes it", async ({ page, browser, request }) => {
  await signIn(page, admin());
  const username = `m${Date.now().toString(36)}`;
  const created = await page.request.post("/api/v1/users", {
    data: { username, password: "member-password-1", role: "member" },
    headers: { origin: E2E_ORIGIN },
  });
  expect(created.status()).toBe(201);

  const context = await browser.newContext();
  const memberPage = await context.newPage();
  await signIn(memberPage, { username, password: "member-password-1" });
  const tokenAnswer = await memberPage.request.post("/api/v1/tokens", { data: { label: "e2e" }, headers: { origin: E2E_ORIGIN } });
  expect(tokenAnswer.status()).toBe(201);
  const { token, id } = await tokenAnswer.json();

  const me = await request.get("/api/v1/me", { headers: { authorization: `Bearer ${token}` } });
  expect(me.status()).toBe(200);
  expect((await me.json()).user).toMatchObject({ username, role: "member" });

  const revoked = await memberPage.request.delete(`/api/v1/tokens/${id}`, { headers: { origin: E2E_ORIGIN } });
  expect(revoked.status()).toBe(204);
  const after = await request.get("/api/v1/me", { headers: { authorization: `Bearer ${token}` } });
  expect(after.status()).toBe(401);
  expect((await after.json()).error.code).toBe("unauthorized");
  await context.close();
});

test("cookie-authenticated changes from another site are refused", async ({ page }) => {
  await signIn(page, member());
  const forged = await page.request.post("/api/v1/tokens", { data: { label: "csrf" }, headers: { origin: "http://evil.example" } });
  expect(forged.status()).toBe(403);
});

test("disabling a member signs them out at once", async ({ page, browser }) => {
  await signIn(page, admin());
  const victim = createUser("victim");
  const context = await browser.newContext();
  const victimPage = await context.newPage();
  await signIn(victimPage, victim);
  expect((await victimPage.request.get("/api/v1/me")).status()).toBe(200);
  const users = (await (await page.request.get("/api/v1/users")).json()).users as { id: string; username: string }[];
  const id = users.find((user) => user.username === victim.username)!.id;
  const patched = await page.request.patch(`/api/v1/users/${id}`, { data: { disabled: true }, headers: { origin: E2E_ORIGIN } });
  expect(patched.status()).toBe(200);
  expect((await victimPage.request.get("/api/v1/me")).status()).toBe(401);
  await context.close();
});
