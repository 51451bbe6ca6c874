import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_TEST_ORIGIN, authRouteCall, cookiesOf, sessionUserOf } from "@/server/testing/auth-route";
import { type OidcPerson, signInAtProvider, startOidcProvider, type TestOidcProvider } from "@/server/testing/oidc-provider";
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
];
let provider: TestOidcProvider;
let route: typeof import("@/app/api/auth/[...all]/route");
const authCall = (path: string, init?: Parameters<typeof authRouteCall>[2]) => authRouteCall(route, path, init);
const sessionUser = (response: Response) => sessionUserOf(route, response);

/** The whole round trip: gpudesk → provider's pages → gpudesk's callback. Answers the callback's response. */
async function signIn(login: string): Promise<Response> {
  const start = await authCall("/sign-in/social", { body: { provider: "oidc", callbackURL: "/reservations" } });
  expect(start.status).toBe(200);
  const { url } = (await start.json()) as { url: string };
  expect(url.startsWith(`${provider.issuer}/`)).toBe(true);
  const back = await signInAtProvider(url, login, CALLBACK);
  const path = back.slice(AUTH_TEST_ORIGIN.length + "/api/auth".length);
  return authCall(path, { method: "GET", cookie: cookiesOf(start) });
}

beforeAll(async () => {
  provider = await startOidcProvider([CALLBACK], people);
  Object.assign(process.env, provider.env, { GPUDESK_SSO_ADMIN_GROUPS: "gpu-admins", GPUDESK_SSO_TEAM_GROUPS: "vision-lab=vision" });
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
    const { db } = await import("@/server/db");
    expect(await db().account.count({ where: { providerId: "oidc", userId: first?.id } })).toBe(1);
  });

  it("an account an admin created is the one signed into (by username), its Unix login as the directory says", async () => {
    const { createUser } = await import("@/server/auth/users");
    const created = await createUser({ username: "dana", password: "dana-local-password" });
    const user = await sessionUser(await signIn("sub-dana"));
    expect(user).toMatchObject({ id: created.id, username: "dana", unixLogin: "dana2" });
  });

  it("signing out ends the gpudesk session", async () => {
    const callback = await signIn("sub-dana");
    expect(await sessionUser(callback)).not.toBeNull();
    const out = await authCall("/sign-out", { cookie: cookiesOf(callback) });
    expect(out.status).toBe(200);
    expect(await sessionUser(callback)).toBeNull();
  });

  it("a username claim that is no valid gpudesk username is refused back to the sign-in page", async () => {
    const callback = await signIn("sub-nameless");
    expect(callback.status).toBe(302);
    expect(callback.headers.get("location")).toMatch(/^\/login\?error=/);
    expect(callback.headers.getSetCookie().some((line) => line.includes("session_token="))).toBe(false);
  });

  it("a disabled account gets no session", async () => {
    const { db } = await import("@/server/db");
    await db().user.update({ where: { username: "oona" }, data: { banned: true } });
    const callback = await signIn("sub-oona");
    expect(callback.headers.get("location")).toMatch(/^\/login\?error=/);
    expect(await sessionUser(callback)).toBeNull();
  });

  it("an ID token posted to sign-in/social is refused: only the provider's pages sign in", async () => {
    const response = await authCall("/sign-in/social", { body: { provider: "oidc", idToken: { token: "x.y.z" } } });
    expect(response.status).toBe(400);
  });
});
