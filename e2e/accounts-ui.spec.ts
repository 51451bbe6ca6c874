import { expect, test, type Page } from "@playwright/test";
import { E2E_ORIGIN, admin, hydrated, member, signIn, uniqueHostName, type TestUser } from "./helpers";

/** Signs in the way a person does: the form on /login. */
async function signInThroughPage(page: Page, user: TestUser): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("Username").fill(user.username);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/$/);
  // The header's menus open once the page is hydrated: "Live" says its scripts run (a click before that is lost).
  await expect(page.getByRole("status").filter({ hasText: "Live" })).toBeVisible();
}

test("an admin adds a member in /admin/users; the member makes, uses and revokes a token in /settings/tokens", async ({ page, browser, request }) => {
  await signInThroughPage(page, (await admin()));
  await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Admin" }).click();
  await page.getByRole("link", { name: "Users" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
  // The demo people of the simulated fleet are marked as such (README), the admin is not.
  const marked = page.getByRole("row").filter({ has: page.getByText("simulated", { exact: true }) });
  await expect(marked.first()).toContainText(/alice|bob|carol|dave|erin|frank/i);
  await expect(page.getByRole("row").filter({ hasText: (await admin()).username })).not.toContainText("simulated");
  await page.screenshot({ path: "test-results/screens/admin-users-simulated.png", fullPage: true });

  const username = `ui${Date.now().toString(36)}`;
  const password = "member-password-1";
  const form = page.getByRole("form", { name: "Add a person" });
  await form.getByLabel("Username").fill(username);
  await form.getByLabel("Name", { exact: true }).fill("Ui Member");
  await expect(form.getByLabel("Unix login")).toHaveValue(username);

  // The server's rule, next to its field; what was typed stays.
  await form.getByLabel("Password").fill("short");
  await form.getByRole("button", { name: "Add person" }).click();
  await expect(form.getByText("Password is at least 10 characters.")).toBeVisible();
  await form.getByLabel("Password").fill("            ");
  await form.getByRole("button", { name: "Add person" }).click();
  await expect(form.getByText("Password is not only spaces.")).toBeVisible();
  await expect(form.getByLabel("Username")).toHaveValue(username);

  await form.getByLabel("Password").fill(password);
  await form.getByRole("button", { name: "Add person" }).click();
  await expect(form.getByRole("status")).toContainText(`Added ${username}`);
  const row = page.getByRole("row").filter({ hasText: username });
  await expect(row.getByLabel(`Role of ${username}`)).toHaveValue("member");

  // Taken usernames are refused next to the field.
  await form.getByLabel("Username").fill(username);
  await form.getByLabel("Password").fill(password);
  await form.getByRole("button", { name: "Add person" }).click();
  await expect(form.getByText("Username is taken.")).toBeVisible();

  const context = await browser.newContext();
  const memberPage = await context.newPage();
  await signInThroughPage(memberPage, { username, password });
  await memberPage.getByRole("button", { name: /Account: Ui Member/ }).click();
  await memberPage.getByRole("link", { name: "API tokens" }).click();
  await expect(memberPage.getByRole("heading", { level: 1, name: "API tokens" })).toBeVisible();

  await memberPage.getByLabel("Label").fill("e2e laptop");
  await memberPage.getByRole("button", { name: "Create token" }).click();
  const secret = memberPage.getByLabel("New token");
  await expect(secret).toHaveValue(/^gpd_pat_/);
  const token = await secret.inputValue();
  await expect(memberPage.getByText(`curl -H "Authorization: Bearer ${token}" ${E2E_ORIGIN}/api/v1/me`)).toBeVisible();

  const me = await request.get("/api/v1/me", { headers: { authorization: `Bearer ${token}` } });
  expect(me.status()).toBe(200);
  expect((await me.json()).user).toMatchObject({ username, role: "member" });

  // Shown once: gone after a reload, only its prefix remains.
  await memberPage.reload();
  await expect(memberPage.getByRole("row").filter({ hasText: "e2e laptop" })).toContainText(token.slice(0, 12));
  expect(await memberPage.content()).not.toContain(token);

  await memberPage.getByRole("button", { name: "Revoke e2e laptop" }).click();
  const dialog = memberPage.getByRole("dialog", { name: "Revoke “e2e laptop”?" });
  await dialog.getByRole("button", { name: "Revoke token" }).click();
  await expect(dialog).toBeHidden();
  await expect(memberPage.getByRole("row").filter({ hasText: "e2e laptop" })).toContainText("Revoked");

  const after = await request.get("/api/v1/me", { headers: { authorization: `Bearer ${token}` } });
  expect(after.status()).toBe(401);

  await memberPage.getByRole("button", { name: /Account: Ui Member/ }).click();
  await memberPage.getByRole("button", { name: "Sign out" }).click();
  await expect(memberPage).toHaveURL(/\/login$/);
  expect((await memberPage.request.get("/api/v1/me")).status()).toBe(401);
  await context.close();
});

test("a member who opens an admin page is sent to the fleet and told why", async ({ page }) => {
  await signIn(page, (await member()));
  await page.goto("/admin/users");
  await expect(page).toHaveURL(/\/(\?forbidden=1)?$/);
  await expect(page.getByRole("status").filter({ hasText: "That page is for admins" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Admin" })).toHaveCount(0);
});

test("an admin registers a host in /admin/hosts and sees its token once, then rotates and removes it", async ({ page }) => {
  await signIn(page, (await admin()));
  await page.goto("/admin/hosts");
  const name = uniqueHostName("ui-host");

  await page.getByLabel("Host name").fill(name);
  await page.getByRole("button", { name: "Register host" }).click();
  const secret = page.getByLabel("Agent token");
  await expect(secret).toHaveValue(/^gpd_host_/);
  const token = await secret.inputValue();
  await expect(page.getByText(`curl -fsSL ${E2E_ORIGIN}/install.sh | sudo sh`, { exact: true }).first()).toBeVisible();
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText(token.slice(0, 13));

  await page.getByLabel("Host name").fill(name);
  await page.getByRole("button", { name: "Register host" }).click();
  await expect(page.getByText(`A host named ${name} already exists`)).toBeVisible();

  await page.reload();
  expect(await page.content()).not.toContain(token);

  await page.getByRole("button", { name: `Rotate token of ${name}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Rotate token" }).click();
  await expect(page.getByLabel("Agent token")).toHaveValue(/^gpd_host_/);
  expect(await page.getByLabel("Agent token").inputValue()).not.toBe(token);

  await page.getByRole("button", { name: `Remove ${name}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Remove host" }).click();
  await expect(page.getByRole("row").filter({ hasText: name })).toHaveCount(0);

  // The audit log says each step in a sentence, times in the one format (no "undefined", no raw ISO time).
  await page.goto("/admin/audit?kind=host");
  const registered = page.getByRole("row").filter({ hasText: "Registered a host" }).filter({ hasText: name });
  await expect(registered).toContainText(`Registered a host: name ${name}.`);
  await expect(page.getByRole("row").filter({ hasText: "Rotated a host token" }).first()).toContainText(/token new\./);
  const table = (await page.getByRole("table").innerText()).toString();
  expect(table).not.toContain("undefined");
  expect(table).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
  await page.goto("/admin/audit");
  expect(await page.getByRole("table").innerText()).not.toMatch(/undefined|\d{4}-\d\d-\d\dT\d\d:\d\d/);
  await page.screenshot({ path: "test-results/screens/admin-audit-sentences.png", fullPage: true });
});

test("an admin adds a wall display and gets its address once", async ({ page }) => {
  await signIn(page, (await admin()));
  await page.goto("/admin/displays");
  const name = `Hall ${Date.now().toString(36)}`;
  await page.getByLabel("Display name").fill(name);
  await page.getByRole("button", { name: "Add display" }).click();
  const token = await page.getByLabel("Display token").inputValue();
  expect(token).toMatch(/^gpd_disp_/);
  await expect(page.getByText(`${E2E_ORIGIN}/display?token=${token}`)).toBeVisible();
  // The overview layout is part of the address the admin copies.
  await page.getByRole("radio", { name: /^Overview/ }).check();
  await expect(page.getByText(`${E2E_ORIGIN}/display?token=${token}&layout=overview`)).toBeVisible();
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.screenshot({ path: "test-results/screens/admin-display-layout-1920x1080.png" });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByText(`${E2E_ORIGIN}/display?token=${token}&layout=overview`).scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/screens/admin-display-layout-390x844.png" });

  await page.getByRole("button", { name: `Revoke ${name}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke display" }).click();
  await expect(page.getByRole("row").filter({ hasText: name })).toContainText("Revoked");
  const fleet = await page.request.get("/api/v1/fleet", { headers: { authorization: `Bearer ${token}` } });
  expect(fleet.status()).toBe(401);
});

test("on a phone the navigation folds into a menu", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, (await admin()));
  await page.goto("/settings/tokens");
  await expect(page.getByRole("link", { name: "Reserve" })).toBeHidden();
  // The header's menu opens once the page's scripts run (a phone's header has no room for "Live").
  await hydrated(page);
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("link", { name: "Hosts" }).click();
  await expect(page).toHaveURL(/\/admin\/hosts$/);
  await expect(page.getByRole("heading", { level: 1, name: "Hosts" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Reserve" })).toBeHidden();
});
