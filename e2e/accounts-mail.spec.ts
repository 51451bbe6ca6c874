import { type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { E2E_MAIL_DIR } from "../playwright.config";
import { addHost, E2E_ORIGIN, admin, createUser, fakeNvidiaSmi, gpudesk, hydrated, ownH200Fixture, releaseEverything, signIn, startAgent, uniqueHostName } from "./helpers";

/**
 * Accounts a lab can run: a person changes their password, an admin resets
 * one (the person must choose their own at once), the admin's action is in
 * the audit log, and "your booking ends soon" arrives by mail at the real
 * SMTP server of e2e/smtp-global-setup.ts.
 */

const SHOTS = process.env.E2E_SCREENSHOTS_DIR;
const children: ChildProcess[] = [];

test.afterAll(() => {
  for (const child of children) child.kill("SIGTERM");
});

async function shot(page: import("@playwright/test").Page, name: string) {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

function mailTo(address: string): { to: string; subject: string; text: string; html: string }[] {
  return readdirSync(E2E_MAIL_DIR)
    .map((name) => JSON.parse(readFileSync(path.join(E2E_MAIL_DIR, name), "utf8")) as { to: string; subject: string; text: string; html: string })
    .filter((mail) => mail.to.includes(address));
}

test("a person changes their password: the new one signs in, their other sessions end", async ({ page, browser }) => {
  test.setTimeout(180_000);
  const person = await createUser("pwchange");
  const other = await browser.newContext({ baseURL: E2E_ORIGIN });
  const otherPage = await other.newPage();
  await signIn(otherPage, person);
  expect((await otherPage.request.get("/api/v1/me")).status()).toBe(200);

  await signIn(page, person);
  await page.goto("/settings/account");
  await hydrated(page);
  const form = page.getByRole("form", { name: "Change my password" });
  await form.getByLabel("Current password").fill("not-my-password");
  await form.getByLabel("New password", { exact: true }).fill("a-better-password-1");
  await form.getByLabel("New password again").fill("a-better-password-1");
  await form.getByRole("button", { name: "Change password" }).click();
  await expect(form.getByText("Current password is not right.")).toBeVisible();

  await form.getByLabel("Current password").fill(person.password);
  await form.getByRole("button", { name: "Change password" }).click();
  await expect(form.getByRole("status")).toHaveText("Password changed. You were signed out everywhere else.");
  await shot(page, "settings-account");

  // This browser goes on; the other one is signed out; the new password signs in.
  expect((await page.request.get("/api/v1/me")).status()).toBe(200);
  expect((await otherPage.request.get("/api/v1/me")).status()).toBe(401);
  await signIn(otherPage, { username: person.username, password: "a-better-password-1" });
  await other.close();
});

test("an admin resets a password: the person signs in with it and must choose their own; the audit page shows it", async ({ page, browser }) => {
  test.setTimeout(180_000);
  const person = await createUser("pwreset");
  await signIn(page, (await admin()));
  await page.goto("/admin/users");
  await page.getByRole("button", { name: `Reset password of ${person.username}` }).click();
  const dialog = page.getByRole("dialog");
  const temporary = await dialog.getByLabel("Temporary password").inputValue();
  expect(temporary).toHaveLength(16);
  await shot(page, "admin-users-reset");
  await dialog.getByRole("button", { name: "Set temporary password" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Temporary password of ${person.username}` })).toContainText(temporary);

  const theirs = await browser.newContext({ baseURL: E2E_ORIGIN });
  const theirPage = await theirs.newPage();
  await signIn(theirPage, { username: person.username, password: temporary });
  // Nothing but the password change until they choose their own.
  expect((await theirPage.request.get("/api/v1/reservations?state=current")).status()).toBe(403);
  await theirPage.goto("/reserve");
  await expect(theirPage).toHaveURL(/\/settings\/account\?required=1$/);
  await expect(theirPage.getByText("An admin set a temporary password for you.")).toBeVisible();
  await hydrated(theirPage);
  const form = theirPage.getByRole("form", { name: "Change my password" });
  await form.getByLabel("Current password").fill(temporary);
  await form.getByLabel("New password", { exact: true }).fill("my-own-password-22");
  await form.getByLabel("New password again").fill("my-own-password-22");
  await form.getByRole("button", { name: "Change password" }).click();
  await expect(theirPage).toHaveURL(`${E2E_ORIGIN}/`);
  expect((await theirPage.request.get("/api/v1/reservations?state=current")).status()).toBe(200);
  await theirs.close();

  // The audit page, filtered to accounts and this person: the reset by the admin, from which address.
  await page.goto(`/admin/audit?kind=user&person=${person.username}`);
  const row = page.getByRole("row").filter({ hasText: "Reset a password" });
  await expect(row).toContainText((await admin()).username);
  await expect(row).toContainText("127.0.0.1");
  await expect(page.getByRole("row").filter({ hasText: "Changed their password" })).toContainText(person.username);
  await shot(page, "admin-audit");
});

test("'your booking ends soon' arrives by mail at the SMTP server", async ({ page, baseURL }) => {
  test.setTimeout(180_000);
  const person = await createUser("mailer");
  const address = `${person.username}@lab.e2e.test`;
  await signIn(page, person);
  await page.goto("/settings/notifications");
  await hydrated(page);
  await page.getByLabel("Mail address").fill(address);
  await expect(page.getByLabel("My booking ends in 15 minutes: by mail")).toBeChecked();
  await page.getByLabel("My booking starts in 15 minutes: by mail").check();
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await shot(page, "settings-notifications");

  const hostName = uniqueHostName("e2e-mail");
  const hostToken = await addHost(hostName);
  children.push(startAgent(["--server", baseURL!, "--nvidia-smi", fakeNvidiaSmi, "--host-name", hostName, "--interval", "500ms"], {
    GPUDESK_AGENT_TOKEN: hostToken,
    FAKE_NVIDIA_SMI_DIR: ownH200Fixture(),
  }));
  const token = (await (await page.request.post("/api/v1/tokens", { data: { label: "mail e2e" }, headers: { origin: E2E_ORIGIN } })).json()).token as string;
  try {
    await expect
      .poll(async () => (await page.request.post("/api/v1/reservations", { data: { host: hostName, gpus: [0], durationMinutes: 10, purpose: "mail e2e" }, headers: { origin: E2E_ORIGIN } })).status(), { timeout: 60_000 })
      .toBe(201);
    await expect.poll(() => mailTo(address).map((mail) => mail.subject), { timeout: 90_000 }).toContainEqual(expect.stringMatching(/^\[gpudesk\] Your booking of GPU 0 on e2e-mail.* ends in 10 minutes$/));
    const mail = mailTo(address).find((item) => item.subject.includes("ends in"))!;
    expect(mail.text).toContain('"mail e2e"');
    expect(mail.html).toContain("<h1");
  } finally {
    await releaseEverything(page.request, token);
  }
});
