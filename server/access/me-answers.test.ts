import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

let server: { url: string; close: () => Promise<void> } | undefined;
let tokens: { member: string; admin: string };

beforeAll(async () => {
  await useTestDatabase();
  const { createUser } = await import("@/server/auth/users");
  const { createPersonalToken } = await import("@/server/auth/tokens");
  const member = await createUser({ username: "me_member", password: "member-password" });
  const admin = await createUser({ username: "me_admin", password: "admin-password", role: "admin" });
  tokens = { member: (await createPersonalToken(member.id, "me")).token, admin: (await createPersonalToken(admin.id, "me")).token };
  const { serveRoutes } = await import("@/server/testing/route-server");
  server = await serveRoutes({ "GET /api/v1/me": (await import("@/app/api/v1/me/route")).GET });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

async function me(token: string) {
  const response = await fetch(`${server!.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { user: { username: string; role: string }; via: string; can: Record<string, boolean> };
}

describe("GET /api/v1/me", () => {
  it("answers what the pages may offer (can), beside the fields it had", async () => {
    const member = await me(tokens.member);
    expect(member).toMatchObject({ user: { username: "me_member", role: "member" }, via: "token" });
    expect(member.can).toEqual({ administer: false, cancelBookings: false, removeOthersWaitlistEntries: false, seeAllBookings: false, seeAllAlerts: false, acknowledgeEveryAlert: false, seeAllUsage: false });
    const admin = await me(tokens.admin);
    expect(admin.user.role).toBe("admin");
    expect(admin.can).toEqual({ administer: true, cancelBookings: true, removeOthersWaitlistEntries: true, seeAllBookings: true, seeAllAlerts: true, acknowledgeEveryAlert: true, seeAllUsage: true });
  });
});
