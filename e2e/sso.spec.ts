import { expect, test, type Page } from "@playwright/test";
import { hydrated } from "./helpers";
import { type DisplayServer, startDisplayServer } from "./display-server";
import { type OidcPerson, startOidcProvider, type TestOidcProvider } from "../server/testing/oidc-provider";
import { type Slapd, slapdInstalled, startSlapd } from "../server/testing/slapd";
import { E2E_PORT } from "../playwright.config";

/**
 * Single sign-on in a real browser: a gpudesk server of its own (its SSO
 * settings would change the shared e2e server's sign-in for every other
 * spec), a real OpenID Connect provider (oidc-provider) and a real OpenLDAP
 * (slapd), the server next to E2E_PORT, the provider and slapd on free ports.
 */

const SERVER_PORT = E2E_PORT + 161;
const SERVER = `http://127.0.0.1:${SERVER_PORT}`;

const oidcPeople: OidcPerson[] = [
  { login: "olga", preferred_username: "olga", name: "Olga Owner", groups: ["/lab/gpu-admins"], uid: "oowner" },
  { login: "max", preferred_username: "max", name: "Max Member", groups: ["/lab/students"], uid: "mmember" },
  { login: "outsider", preferred_username: "olga@elsewhere.example", name: "Not Olga", groups: ["/lab/gpu-admins"] },
];
let provider: TestOidcProvider;
let slapd: Slapd;
let server: DisplayServer;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(400_000);
  if (!slapdInstalled()) throw new Error("slapd is not installed: apt-get install -y slapd ldap-utils (as .ci/run does)");
  provider = await startOidcProvider([`${SERVER}/api/auth/callback/oidc`], oidcPeople);
  slapd = await startSlapd([
    { uid: "ada", cn: "Ada Lovelace", password: "ada-directory-pw", groups: ["gpu-admins"] },
    { uid: "ckrause", cn: "Carol Krause", password: "carol-directory-pw", groups: ["students"], mail: "carol@lab.example" },
  ]);
  server = await startDisplayServer({
    port: SERVER_PORT,
    env: { ...provider.env, ...slapd.env, GPUDESK_SSO_ADMIN_GROUPS: "gpu-admins", GPUDESK_SIGNIN_PER_MINUTE: "1000" },
  });
});

test.afterAll(async () => {
  await server?.dispose();
  await slapd?.stop();
  await provider?.stop();
});

async function me(page: Page) {
  const response = await page.request.get(`${SERVER}/api/v1/me`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as { user: { username: string; role: string; unixLogin: string | null } }).user;
}

/** From gpudesk's button through the provider's sign-in and consent pages (any password: devInteractions). */
async function signInAtProviderPages(page: Page, login: string) {
  await page.getByRole("button", { name: "Sign in with Lab SSO" }).click();
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
}

test("the sign-in page offers the provider's button and the directory's password form", async ({ page }) => {
  await page.goto(`${SERVER}/login`);
  await expect(page.getByRole("button", { name: "Sign in with Lab SSO" })).toBeVisible();
  await expect(page.getByLabel("Username")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/sign-in-sso.png" });
  // Back from a refused single sign-on (better-auth's error code in the URL), in words.
  await page.goto(`${SERVER}/login?error=signup_disabled`);
  await expect(page.getByText(/Single sign-on worked, but gpudesk has no account for you/)).toBeVisible();
});

test("OIDC: through the provider's sign-in and consent pages back to gpudesk, an admin by group with the Unix login from the claim", async ({ page }) => {
  await page.goto(`${SERVER}/login?next=%2Freservations`);
  await signInAtProviderPages(page, "olga");
  await expect(page).toHaveURL(`${SERVER}/reservations`);
  expect(await me(page)).toMatchObject({ username: "olga", role: "admin", unixLogin: "oowner" });
  await page.goto(`${SERVER}/admin/users`);
  await expect(page.getByRole("row", { name: /^olga you Olga Owner Admin oowner/ })).toBeVisible();
  // Signing out signs out at the provider too: its end-session page, with gpudesk's session gone.
  // The header's menu opens once the page's scripts run: a click before that is lost.
  await hydrated(page);
  await page.getByRole("button", { name: /^Account: / }).click();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/session/end`));
  expect((await page.request.get(`${SERVER}/api/v1/me`)).status()).toBe(401);
});

test("OIDC: a name of a domain that is not allowed is refused with a page that says so, and no session", async ({ page }) => {
  await page.goto(`${SERVER}/login`);
  await signInAtProviderPages(page, "outsider");
  await expect(page).toHaveURL(`${SERVER}/login?error=domain_not_allowed`);
  await expect(page.getByText(/your account's domain is not one this gpudesk accepts/)).toBeVisible();
  expect((await page.request.get(`${SERVER}/api/v1/me`)).status()).toBe(401);
});

test("OIDC: someone outside the admin groups lands as a member", async ({ page }) => {
  await page.goto(`${SERVER}/login`);
  await signInAtProviderPages(page, "max");
  await expect(page).toHaveURL(`${SERVER}/`);
  expect(await me(page)).toMatchObject({ username: "max", role: "member", unixLogin: "mmember" });
});

test("LDAP: the directory's password in the form; the Unix login from uid, the role from the groups", async ({ page, browser }) => {
  await page.goto(`${SERVER}/login`);
  await page.getByLabel("Username").fill("carol");
  await page.getByLabel("Password").fill("not her password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByText("Wrong username or password.")).toBeVisible();
  await page.getByLabel("Password").fill("carol-directory-pw");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(`${SERVER}/`);
  expect(await me(page)).toMatchObject({ username: "carol", role: "member", unixLogin: "ckrause" });

  const adminContext = await browser.newContext();
  const adminPage = await adminContext.newPage();
  await adminPage.goto(`${SERVER}/login`);
  await adminPage.getByLabel("Username").fill("ada");
  await adminPage.getByLabel("Password").fill("ada-directory-pw");
  await adminPage.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(adminPage).toHaveURL(`${SERVER}/`);
  expect(await me(adminPage)).toMatchObject({ username: "ada", role: "admin", unixLogin: "ada" });
  await adminContext.close();
});

test("with local passwords off and no LDAP the sign-in page is the provider's button alone, and a password is refused", async ({ page }) => {
  test.setTimeout(400_000);
  const ssoOnly = await startDisplayServer({
    port: E2E_PORT + 162,
    env: { ...provider.env, GPUDESK_LOCAL_PASSWORDS: "0", GPUDESK_SIGNIN_PER_MINUTE: "1000" },
  });
  try {
    await page.goto(`${ssoOnly.url}/login`);
    await expect(page.getByRole("button", { name: "Sign in with Lab SSO" })).toBeVisible();
    await expect(page.getByLabel("Username")).toHaveCount(0);
    await page.screenshot({ path: "test-results/screens/sign-in-sso-only.png" });
    const refused = await page.request.post(`${ssoOnly.url}/api/auth/sign-in/username`, {
      data: { username: "alice", password: "any-password-at-all" },
      headers: { origin: ssoOnly.url },
    });
    expect(refused.status()).toBe(401);
  } finally {
    await ssoOnly.dispose();
  }
});
