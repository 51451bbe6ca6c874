// Single sign-on plugged into sign-in, as the server does at start (server/main/sign-in.ts).
import "@/server/testing/plug-sign-in";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_TEST_ORIGIN, authRouteCall, oidcSignInThroughRoute, sessionUserOf } from "@/server/testing/auth-route";
import { type OidcPerson, startOidcProvider, type TestOidcProvider } from "@/server/testing/oidc-provider";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * GPUDESK_OIDC_USERNAME_CLAIM=email, as docs/operations.md sets it up for
 * Google Workspace, against a real provider: the address counts only when
 * the provider verified it and its domain is allowed.
 */

const people: OidcPerson[] = [
  { login: "sub-unverified-adm", preferred_username: "x", name: "Unverified", groups: [], email: "adm@attacker.example", email_verified: false },
  { login: "sub-foreign-adm", preferred_username: "x", name: "Foreign", groups: [], email: "adm@attacker.example", email_verified: true },
  { login: "sub-unverified-lab", preferred_username: "x", name: "Unverified Lab", groups: [], email: "fred@lab.example", email_verified: false },
  { login: "sub-eva", preferred_username: "x", name: "Eva Lab", groups: [], email: "Eva@Lab.Example", email_verified: true },
];
let provider: TestOidcProvider;
let route: typeof import("@/app/api/auth/[...all]/route");
const signIn = (login: string) => oidcSignInThroughRoute(route, provider.issuer, login);

beforeAll(async () => {
  provider = await startOidcProvider([`${AUTH_TEST_ORIGIN}/api/auth/callback/oidc`], people);
  Object.assign(process.env, provider.env, { GPUDESK_OIDC_USERNAME_CLAIM: "email", GPUDESK_OIDC_ALLOWED_DOMAINS: "lab.example" });
  await useTestDatabase();
  route = await import("@/app/api/auth/[...all]/route");
});

afterAll(async () => {
  await provider?.stop();
});

describe("OIDC with the e-mail address as the username", () => {
  it("an unverified address, or one of a domain not allowed, never signs into the local admin of that name", async () => {
    const { createUser } = await import("@/server/auth/users");
    const { db } = await import("@/server/core/db");
    const admin = await createUser({ username: "adm", password: "adm-local-password", role: "admin", directoryLink: true });
    for (const [login, code] of [
      ["sub-unverified-adm", "email_not_verified"],
      ["sub-foreign-adm", "domain_not_allowed"],
      ["sub-unverified-lab", "email_not_verified"],
    ] as const) {
      const callback = await signIn(login);
      expect(callback.headers.get("location")).toBe(`/login?error=${code}`);
      expect(await sessionUserOf(route, callback)).toBeNull();
    }
    expect(await db().account.count({ where: { userId: admin.id, providerId: "oidc" } })).toBe(0);
    const refused = await db().auditLog.findMany({ where: { action: "signin.failure" }, select: { after: true } });
    expect(refused.map((row) => JSON.parse(row.after ?? "{}").reason)).toEqual(expect.arrayContaining(["email_not_verified", "domain_not_allowed"]));
  });

  it("a verified address of an allowed domain signs in under its local part", async () => {
    const user = await sessionUserOf(route, await signIn("sub-eva"));
    expect(user).toMatchObject({ username: "eva", name: "Eva Lab" });
  });

  it("the sign-in page says why in words", async () => {
    const { ssoErrorMessage } = await import("@/server/sso/sign-in-options");
    expect(ssoErrorMessage("domain_not_allowed")).toMatch(/domain is not one this gpudesk accepts/);
    expect(ssoErrorMessage("email_not_verified")).toMatch(/not verified your e-mail/);
    expect((await authRouteCall(route, "/sign-in/social", { body: { provider: "oidc", callbackURL: "/" } })).status).toBe(200);
  });
});
