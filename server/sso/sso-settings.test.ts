// Single sign-on plugged into sign-in, as the server does at start (server/main/sign-in.ts).
import "@/server/testing/plug-sign-in";
import { beforeAll, describe, expect, it } from "vitest";
import { authRouteCall } from "@/server/testing/auth-route";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The two switches: GPUDESK_LOCAL_PASSWORDS=0 (gpudesk's own passwords are
 * refused) and GPUDESK_SSO_CREATE_USERS=0 (only accounts an admin created
 * may sign in through the directory).
 */

let route: typeof import("@/app/api/auth/[...all]/route");
const post = (path: string, body: unknown) => authRouteCall(route, path, { body });

beforeAll(async () => {
  Object.assign(process.env, { GPUDESK_LOCAL_PASSWORDS: "0", GPUDESK_SSO_CREATE_USERS: "0", GPUDESK_SSO_ADMIN_GROUPS: "gpu-admins" });
  await useTestDatabase();
  route = await import("@/app/api/auth/[...all]/route");
});

describe("GPUDESK_LOCAL_PASSWORDS=0", () => {
  it("the right local password no longer signs in", async () => {
    const { createUser } = await import("@/server/auth/users");
    await createUser({ username: "localperson", password: "local-person-password" });
    const response = await post("/sign-in/username", { username: "localperson", password: "local-person-password" });
    expect(response.status).toBe(401);
    expect(response.headers.getSetCookie().some((line) => line.includes("session_token="))).toBe(false);
  });

  it("without OIDC configured, the endpoints that start a single sign-on are closed", async () => {
    expect((await post("/sign-in/social", { provider: "oidc" })).status).toBe(404);
  });
});

describe("GPUDESK_SSO_CREATE_USERS=0", () => {
  it("someone the directory vouches for but no admin created is refused; an account an admin made and linked is updated", async () => {
    const { provisionDirectoryUser } = await import("@/server/sso/directory-user");
    const { createUser } = await import("@/server/auth/users");
    const { db } = await import("@/server/core/db");
    expect(await provisionDirectoryUser({ source: "ldap", subject: "dn:uid=stranger", username: "stranger", groups: [] })).toMatchObject({ ok: false, reason: "not_registered" });
    expect(await db().user.findUnique({ where: { username: "stranger" } })).toBeNull();

    const made = await createUser({ username: "invited", password: "invited-password", role: "admin", directoryLink: true });
    await createUser({ username: "keeper", password: "keeper-password", unixLogin: "shared" });
    const result = await provisionDirectoryUser({ source: "ldap", subject: "dn:uid=invited", username: "Invited", name: "Invited Person", unixLogin: "shared", groups: ["cn=gpu-admins,ou=groups,dc=x"] });
    expect(result).toMatchObject({ ok: true, user: { id: made.id } });
    // The Unix login is a real person's already: not taken from them.
    expect(await db().user.findUnique({ where: { id: made.id }, select: { name: true, role: true, unixLogin: true } })).toEqual({
      name: "Invited Person",
      role: "admin",
      unixLogin: "invited",
    });
  });

  it("a demo account of the simulated fleet is never signed into by name", async () => {
    const { provisionDirectoryUser } = await import("@/server/sso/directory-user");
    const { db } = await import("@/server/core/db");
    await db().user.create({ data: { id: "demo-frank", email: "frank@simulated.gpudesk.invalid", name: "frank", username: "frank", role: "member", simulated: true } });
    expect(await provisionDirectoryUser({ source: "oidc", subject: "s-frank", username: "frank", groups: [] })).toMatchObject({ ok: false, reason: "not_registered" });
  });
});
