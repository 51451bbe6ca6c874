import { expect, test } from "@playwright/test";
import { E2E_ORIGIN, admin, createUser, gpudesk, member, signIn, tokenFor } from "./helpers";

test("anonymous visitors are sent to the sign-in page and come back after signing in", async ({ page }) => {
  const user = (await member());
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
  const user = (await member());
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
  await signIn(page, (await admin()));
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
  await signIn(page, (await member()));
  const forged = await page.request.post("/api/v1/tokens", { data: { label: "csrf" }, headers: { origin: "http://evil.example" } });
  expect(forged.status()).toBe(403);
});

test("disabling a member signs them out at once", async ({ page, browser }) => {
  await signIn(page, (await admin()));
  const victim = await createUser("victim");
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

test("repeated wrong sign-ins answer 429 through the real endpoint, the right password included, until the wait is over", async ({ request }) => {
  // A person of this test's own: the throttle is per username and kept in the database.
  const user = await createUser("guessed");
  const attempt = (password: string) =>
    request.post("/api/auth/sign-in/username", { data: { username: user.username, password }, headers: { origin: E2E_ORIGIN } });
  // Five failures go through; then each attempt waits, and every failure after a wait doubles it.
  // Sign-ins hash passwords and take a while on a busy machine, so the test follows the
  // answers rather than assuming how fast it gets them.
  const failures: number[] = [];
  let throttled: Awaited<ReturnType<typeof attempt>> | undefined;
  for (let i = 0; i < 12 && !throttled; i += 1) {
    const answer = await attempt(`wrong guess ${i}`);
    if (answer.status() === 429) throttled = answer;
    else failures.push(answer.status());
  }
  expect(failures.length).toBeGreaterThanOrEqual(5);
  expect(failures.every((status) => status === 401)).toBe(true);
  expect(throttled, "no 429 after twelve wrong passwords").toBeDefined();
  const waitOf = async (answer: Awaited<ReturnType<typeof attempt>>) => {
    const { message } = (await answer.json()) as { message: string };
    expect(message).toMatch(/^Too many failed sign-ins\. Try again in \d+ s\.$/);
    return Number(/in (\d+) s/.exec(message)?.[1]);
  };
  // Sit out the short waits until one is long enough that the next request surely falls inside it.
  let wait = await waitOf(throttled!);
  for (let guesses = 0; wait < 8 && guesses < 8; guesses += 1) {
    await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 200));
    const answer = await attempt(`guess after waiting ${guesses}`);
    if (answer.status() === 429) wait = await waitOf(answer);
    else expect(answer.status()).toBe(401);
    const again = await attempt("and again at once");
    if (again.status() === 429) wait = await waitOf(again);
  }
  expect(wait).toBeGreaterThanOrEqual(8);
  // Even the right password waits: a guesser cannot tell a hit while throttled.
  expect((await attempt(user.password)).status()).toBe(429);
});

test("a disabled person's personal token is refused at once", async ({ page, request }) => {
  await signIn(page, (await admin()));
  const leaver = await createUser("leaver");
  const token = (await tokenFor(leaver));
  const asLeaver = { authorization: `Bearer ${token}` };
  expect((await request.get("/api/v1/me", { headers: asLeaver })).status()).toBe(200);
  const users = (await (await page.request.get("/api/v1/users")).json()).users as { id: string; username: string }[];
  const id = users.find((user) => user.username === leaver.username)!.id;
  const patched = await page.request.patch(`/api/v1/users/${id}`, { data: { disabled: true }, headers: { origin: E2E_ORIGIN } });
  expect(patched.status()).toBe(200);
  // The very next request, with no wait: refused, for reading and for booking alike.
  expect((await request.get("/api/v1/me", { headers: asLeaver })).status()).toBe(401);
  const booking = await request.post("/api/v1/reservations", { headers: asLeaver, data: { count: 1, durationMinutes: 5, purpose: "after leaving" } });
  expect(booking.status()).toBe(401);
});
