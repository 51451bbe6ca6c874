// Single sign-on plugged into sign-in, as the server does at start (server/main/sign-in.ts).
import "@/server/testing/plug-sign-in";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { AUTH_TEST_ORIGIN, authRouteCall, cookiesOf, oidcSignInThroughRoute, sessionUserOf } from "@/server/testing/auth-route";
import { type OidcPerson, startOidcProvider, type TestOidcProvider } from "@/server/testing/oidc-provider";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Single sign-on through better-auth's generic OAuth plugin against a real
 * OpenID Connect provider started here (oidc-provider): the browser's part
 * is played by fetch, gpudesk's by its /api/auth route handler.
 */

const CALLBACK = `${AUTH_TEST_ORIGIN}/api/auth/callback/oidc`;

const people: OidcPerson[] = [
  { login: "sub-oona", preferred_username: "oona", name: "Oona Member", groups: ["/lab/students"], uid: "ooname" },
  { login: "sub-arvid", preferred_username: "Arvid@lab.example", name: "Arvid Admin", groups: ["/lab/gpu-admins", "/lab/vision-lab"] },
  { login: "sub-dana", preferred_username: "dana", name: "Dana Preset", groups: [], uid: "dana2" },
  { login: "sub-nameless", preferred_username: "not a valid name!", name: "Bad", groups: [] },
  // Claims that name a local admin: a user principal name of a domain not allowed, and a plain name.
  { login: "sub-evil", preferred_username: "adm@evil.example", name: "Not The Admin", groups: [] },
  { login: "sub-adm-twin", preferred_username: "adm", name: "Not The Admin Either", groups: [] },
  { login: "sub-adm", preferred_username: "adm", name: "The Admin", groups: ["/lab/gpu-admins"] },
  { login: "sub-newbie", preferred_username: "newbie", name: "New Person", groups: [] },
  { login: "sub-ghost", preferred_username: "ghost", name: "Never Registered", groups: [] },
];
let provider: TestOidcProvider;
let route: typeof import("@/app/api/auth/[...all]/route");
const authCall = (path: string, init?: Parameters<typeof authRouteCall>[2]) => authRouteCall(route, path, init);
const sessionUser = (response: Response) => sessionUserOf(route, response);

/** The whole round trip: gpudesk → provider's pages → gpudesk's callback. Answers the callback's response. */
const signIn = (login: string) => oidcSignInThroughRoute(route, provider.issuer, login);

beforeAll(async () => {
  provider = await startOidcProvider([CALLBACK], people);
  Object.assign(process.env, provider.env, {
    GPUDESK_SSO_ADMIN_GROUPS: "gpu-admins",
    GPUDESK_SSO_TEAM_GROUPS: "vision-lab=vision",
    GPUDESK_OIDC_ALLOWED_DOMAINS: "lab.example",
  });
  await useTestDatabase();
  route = await import("@/app/api/auth/[...all]/route");
});

afterAll(async () => {
  await provider?.stop();
});

describe("OIDC sign-in against a real provider", () => {
  it("a first sign-in creates a member with the Unix login from its claim and lands where it was going", async () => {
    const callback = await signIn("sub-oona");
    expect(callback.status).toBe(302);
    expect(callback.headers.get("location")).toBe("/reservations");
    expect(await sessionUser(callback)).toMatchObject({ username: "oona", name: "Oona Member", role: "member", unixLogin: "ooname" });
  });

  it("a member of the admin group is an admin; a user principal name loses its domain; without a Unix login claim it is the username", async () => {
    const user = await sessionUser(await signIn("sub-arvid"));
    expect(user).toMatchObject({ username: "arvid", role: "admin", unixLogin: "arvid" });
  });

  it("signing in again is the same account, and group changes at the provider change the role (never the last admin's)", async () => {
    const first = await sessionUser(await signIn("sub-arvid"));
    people[1].groups = ["/lab/students"];
    expect((await sessionUser(await signIn("sub-arvid")))?.role).toBe("admin");
    const { createUser } = await import("@/server/auth/users");
    await createUser({ username: "local_admin", password: "local-admin-password", role: "admin" });
    const again = await sessionUser(await signIn("sub-arvid"));
    expect(again?.id).toBe(first?.id);
    expect(again?.role).toBe("member");
    const { db } = await import("@/server/core/db");
    expect(await db().account.count({ where: { providerId: "oidc", userId: first?.id } })).toBe(1);
  });

  it("an account an admin created and linked to the directory is the one signed into (by username), its Unix login as the directory says", async () => {
    const { createUser } = await import("@/server/auth/users");
    const created = await createUser({ username: "dana", password: "dana-local-password", directoryLink: true });
    const user = await sessionUser(await signIn("sub-dana"));
    expect(user).toMatchObject({ id: created.id, username: "dana", unixLogin: "dana2" });
  });

  it("a claim alone never takes a local account: a foreign domain is refused, a plain name waits for an admin's link, then the subject is bound", async () => {
    const { createUser, updateUser } = await import("@/server/auth/users");
    const { db } = await import("@/server/core/db");
    const admin = await createUser({ username: "adm", password: "adm-local-password", role: "admin" });

    const foreign = await signIn("sub-evil");
    expect(foreign.headers.get("location")).toBe("/login?error=domain_not_allowed");
    expect(foreign.headers.getSetCookie().some((line) => line.includes("session_token="))).toBe(false);

    const unlinked = await signIn("sub-adm");
    expect(unlinked.headers.get("location")).toBe("/login?error=account_not_linked");
    expect(await sessionUser(unlinked)).toBeNull();
    expect(await db().account.count({ where: { userId: admin.id, providerId: "oidc" } })).toBe(0);

    const actor = { kind: "user" as const, via: "session" as const, user: { id: admin.id, username: "adm", name: "adm", role: "admin" as const, unixLogin: "adm" } };
    await updateUser(admin.id, { directoryLink: true }, actor);
    expect(await sessionUser(await signIn("sub-adm"))).toMatchObject({ id: admin.id, role: "admin" });
    // Bound to that subject now: another identity claiming the same name is refused.
    expect((await signIn("sub-adm-twin")).headers.get("location")).toBe("/login?error=account_not_linked");
    expect(await sessionUser(await signIn("sub-adm"))).toMatchObject({ id: admin.id });
    expect(await db().user.findUniqueOrThrow({ where: { id: admin.id }, select: { name: true } })).toEqual({ name: "The Admin" });
  });

  it("a squatted synthetic address neither freezes a first sign-in nor an admin's account creation", async () => {
    const { createUser } = await import("@/server/auth/users");
    const { updateNotificationSettings } = await import("@/server/notifications/notification-preferences");
    const { db } = await import("@/server/core/db");
    const squatter = await createUser({ username: "squatter", password: "squatter-password" });
    // The settings refuse every address of the reserved domain now…
    await expect(updateNotificationSettings(squatter.id, { email: "newbie@users.gpudesk.invalid" })).rejects.toThrow(/reserves/);
    await expect(updateNotificationSettings(squatter.id, { email: "refused@sso.gpudesk.invalid" })).rejects.toThrow(/reserves/);
    // …and an address squatted before that (written straight to the row) takes nothing.
    await db().user.update({ where: { id: squatter.id }, data: { email: "newbie@users.gpudesk.invalid" } });
    const callback = await signIn("sub-newbie");
    expect(await sessionUser(callback)).toMatchObject({ username: "newbie", name: "New Person" });
    await db().user.update({ where: { id: squatter.id }, data: { email: "later@users.gpudesk.invalid" } });
    expect(await createUser({ username: "later", password: "later-password" })).toMatchObject({ username: "later" });
  });

  it("a refused sign-in never becomes a session, whoever holds an address", async () => {
    const { createUser } = await import("@/server/auth/users");
    const { db } = await import("@/server/core/db");
    const member = await createUser({ username: "bookedBy", password: "booker-password" });
    await db().user.update({ where: { id: member.id }, data: { email: "refused@sso.gpudesk.invalid" } });
    const callback = await signIn("sub-nameless");
    expect(callback.headers.get("location")).toBe("/login?error=invalid_username");
    expect(await sessionUser(callback)).toBeNull();
    expect(await db().account.count({ where: { userId: member.id, providerId: "oidc" } })).toBe(0);
  });

  it("signing out ends the gpudesk session and names the provider's end-session address, which ends the provider's session too", async () => {
    const callback = await signIn("sub-dana");
    expect(await sessionUser(callback)).not.toBeNull();
    const out = await authCall("/sign-out", { cookie: cookiesOf(callback), body: { disableRedirect: true } });
    expect(out.status).toBe(200);
    expect(await sessionUser(callback)).toBeNull();
    const { url } = (await out.json()) as { url?: string };
    expect(url?.startsWith(`${provider.issuer}/session/end?`)).toBe(true);
    const logout = new URL(url ?? "");
    expect(logout.searchParams.get("id_token_hint")).toMatch(/^ey/);
    // The provider takes it: its confirmation page, not an error about the hint.
    const page = await fetch(url ?? "", { redirect: "manual" });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/logout|sign-?out/i);
  });

  it("a username claim that is no valid gpudesk username is refused back to the sign-in page", async () => {
    const callback = await signIn("sub-nameless");
    expect(callback.status).toBe(302);
    expect(callback.headers.get("location")).toMatch(/^\/login\?error=/);
    expect(callback.headers.getSetCookie().some((line) => line.includes("session_token="))).toBe(false);
  });

  it("a disabled account gets no session", async () => {
    const { db } = await import("@/server/core/db");
    await db().user.update({ where: { username: "oona" }, data: { banned: true } });
    const callback = await signIn("sub-oona");
    expect(callback.headers.get("location")).toMatch(/^\/login\?error=/);
    expect(await sessionUser(callback)).toBeNull();
  });

  it("a lab behind one address signs in at 9 a.m.: sign-in starts and callbacks share GPUDESK_SIGNIN_PER_MINUTE per address, not better-auth's 3 per 10 s", async () => {
    // The limit's window stands still: the count, not the machine's speed, decides.
    vi.useFakeTimers({ toFake: ["Date"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const start = () => authCall("/sign-in/social", { body: { provider: "oidc", callbackURL: "/" }, ip: "192.0.2.9" });
    const starts: number[] = [];
    for (let person = 0; person < 30; person++) starts.push((await start()).status);
    expect(starts.every((status) => status === 200)).toBe(true);
    const callbacks: number[] = [];
    for (let person = 0; person < 30; person++) callbacks.push((await authCall("/callback/oidc?state=x&code=y", { method: "GET", ip: "192.0.2.9" })).status);
    expect(callbacks.every((status) => status !== 429)).toBe(true);
    // The limit still holds per address: past it, that address waits and another does not.
    const rest: number[] = [];
    for (let extra = 0; extra < 35; extra++) rest.push((await start()).status);
    expect(rest.at(-1)).toBe(429);
    expect((await authCall("/sign-in/social", { body: { provider: "oidc", callbackURL: "/" }, ip: "192.0.2.10" })).status).toBe(200);
  });

  it("an ID token posted to sign-in/social is refused: only the provider's pages sign in", async () => {
    const response = await authCall("/sign-in/social", { body: { provider: "oidc", idToken: { token: "x.y.z" } } });
    expect(response.status).toBe(400);
  });
});
