import { beforeAll, describe, expect, it } from "vitest";
import { FleetState } from "@/server/fleet/fleet-state";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Every role against every protected action of the accounts API, with the
 * exact outcome. Route handlers are called in-process with real requests,
 * a real database and real better-auth sessions.
 */

const ORIGIN = "http://gpudesk.test";
type Who = "anonymous" | "member" | "otherMember" | "admin" | "display" | "host" | "revoked";
const WHO: Who[] = ["anonymous", "member", "otherMember", "admin", "display", "host", "revoked"];

let credentials: Record<Who, Record<string, string>>;
let fixtures: { memberTokenId: string; otherMemberId: string; hostId: string; displayId: string };

async function cookieFor(username: string, password: string): Promise<string> {
  const { auth } = await import("@/server/auth/better-auth");
  const response = await auth().handler(
    new Request(`${ORIGIN}/api/auth/sign-in/username`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN, host: "gpudesk.test", "x-gpudesk-client-ip": `10.1.${Math.random() * 250 | 0}.1` },
      body: JSON.stringify({ username, password }),
    }),
  );
  expect(response.status).toBe(200);
  return response.headers.getSetCookie().map((cookie) => cookie.split(";")[0]).join("; ");
}

beforeAll(async () => {
  await useTestDatabase();
  const { setRuntime } = await import("@/server/runtime");
  setRuntime({ fleet: new FleetState({ offlineAfterMs: 5000, simulated: true }), ingest: {} as never, disconnectAgents: () => {} });
  const { createUser } = await import("@/server/auth/users");
  const { createPersonalToken, createDisplay, revokePersonalToken } = await import("@/server/auth/tokens");
  const { createHost } = await import("@/server/hosts/host-registry");
  const member = await createUser({ username: "mia", password: "mia-password" });
  const other = await createUser({ username: "otto", password: "otto-password" });
  const admin = await createUser({ username: "ada", password: "ada-password", role: "admin" });
  const memberToken = await createPersonalToken(member.id, "matrix");
  const revoked = await createPersonalToken(member.id, "revoked");
  await revokePersonalToken(revoked.summary.id, { kind: "user", via: "token", user: { ...admin, role: "admin" } });
  const display = await createDisplay("matrix-wall");
  const host = await createHost("matrix-node");
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  credentials = {
    anonymous: {},
    member: { cookie: await cookieFor("mia", "mia-password") },
    otherMember: { cookie: await cookieFor("otto", "otto-password") },
    admin: { cookie: await cookieFor("ada", "ada-password") },
    display: bearer(display.token),
    host: bearer(host.token),
    revoked: bearer(revoked.token),
  };
  fixtures = { memberTokenId: memberToken.summary.id, otherMemberId: other.id, hostId: host.host.id, displayId: display.display.id };
});

// Route handlers type their params precisely; a method signature lets the table hold them all.
type Handler = {
  call(request: Request, context: { params: Promise<Record<string, string>> }): Promise<Response>;
}["call"];

interface Action {
  name: string;
  method: string;
  call: () => Promise<{ handler: Handler; params?: Record<string, string>; body?: unknown }>;
  /** Expected status per principal; "ok" is any 2xx. */
  expect: Record<Who, "ok" | 401 | 403 | 404>;
}

const memberOnly = { anonymous: 401, member: "ok", otherMember: "ok", admin: "ok", display: 403, host: 401, revoked: 401 } as const;
const adminOnly = { anonymous: 401, member: 403, otherMember: 403, admin: "ok", display: 403, host: 401, revoked: 401 } as const;
let unique = 0;

const actions: Action[] = [
  { name: "GET /api/v1/me", method: "GET", call: async () => ({ handler: (await import("@/app/api/v1/me/route")).GET }), expect: memberOnly },
  {
    name: "GET /api/v1/fleet",
    method: "GET",
    call: async () => ({ handler: (await import("@/app/api/v1/fleet/route")).GET }),
    expect: { ...memberOnly, display: "ok" },
  },
  { name: "GET /api/v1/tokens", method: "GET", call: async () => ({ handler: (await import("@/app/api/v1/tokens/route")).GET }), expect: memberOnly },
  {
    name: "POST /api/v1/tokens",
    method: "POST",
    call: async () => ({ handler: (await import("@/app/api/v1/tokens/route")).POST, body: { label: "x" } }),
    expect: memberOnly,
  },
  {
    name: "DELETE someone's token (mia's)",
    method: "DELETE",
    call: async () => ({ handler: (await import("@/app/api/v1/tokens/[id]/route")).DELETE, params: { id: fixtures.memberTokenId } }),
    // Another member learns nothing: not found. The owner's and the admin's revoke it (idempotent).
    expect: { ...memberOnly, otherMember: 404 },
  },
  { name: "GET /api/v1/users", method: "GET", call: async () => ({ handler: (await import("@/app/api/v1/users/route")).GET }), expect: adminOnly },
  {
    name: "POST /api/v1/users",
    method: "POST",
    call: async () => ({
      handler: (await import("@/app/api/v1/users/route")).POST,
      body: { username: `new${(unique += 1)}`, password: "a-long-password" },
    }),
    expect: adminOnly,
  },
  {
    name: "PATCH /api/v1/users/:id",
    method: "PATCH",
    call: async () => ({
      handler: (await import("@/app/api/v1/users/[id]/route")).PATCH,
      params: { id: fixtures.otherMemberId },
      body: { unixLogin: "otto" },
    }),
    expect: adminOnly,
  },
  { name: "GET /api/v1/hosts", method: "GET", call: async () => ({ handler: (await import("@/app/api/v1/hosts/route")).GET }), expect: adminOnly },
  {
    name: "POST /api/v1/hosts",
    method: "POST",
    call: async () => ({ handler: (await import("@/app/api/v1/hosts/route")).POST, body: { name: `n-${(unique += 1)}` } }),
    expect: adminOnly,
  },
  {
    name: "POST /api/v1/hosts/:id/rotate",
    method: "POST",
    call: async () => ({ handler: (await import("@/app/api/v1/hosts/[id]/rotate/route")).POST, params: { id: fixtures.hostId } }),
    expect: adminOnly,
  },
  { name: "GET /api/v1/displays", method: "GET", call: async () => ({ handler: (await import("@/app/api/v1/displays/route")).GET }), expect: adminOnly },
  {
    name: "POST /api/v1/displays",
    method: "POST",
    call: async () => ({ handler: (await import("@/app/api/v1/displays/route")).POST, body: { name: `wall ${(unique += 1)}` } }),
    expect: adminOnly,
  },
];

describe("permission matrix", () => {
  for (const action of actions) {
    for (const who of WHO) {
      it(`${action.name} as ${who}`, async () => {
        const { handler, params = {}, body } = await action.call();
        const request = new Request(`${ORIGIN}/api`, {
          method: action.method,
          headers: { ...credentials[who], origin: ORIGIN, host: "gpudesk.test", ...(body ? { "content-type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        const response = await handler(request, { params: Promise.resolve(params) });
        const expected = action.expect[who];
        if (expected === "ok") {
          expect(response.status, await response.clone().text()).toBeGreaterThanOrEqual(200);
          expect(response.status).toBeLessThan(300);
        } else {
          expect(response.status).toBe(expected);
          const payload = (await response.json()) as { error: { code: string; message: string } };
          expect(payload.error.code).toBe({ 401: "unauthorized", 403: "forbidden", 404: "not_found" }[expected]);
        }
      });
    }
  }

  it("a cookie-authenticated change from another origin is refused; the same with a bearer token is not", async () => {
    const { POST } = await import("@/app/api/v1/tokens/route");
    const forged = await POST(
      new Request(`${ORIGIN}/api`, {
        method: "POST",
        headers: { ...credentials.member, origin: "http://evil.example", host: "gpudesk.test", "content-type": "application/json" },
        body: JSON.stringify({ label: "csrf" }),
      }),
      { params: Promise.resolve({}) },
    );
    expect(forged.status).toBe(403);
  });

  it("answers never contain secrets: no hashes in token or host listings", async () => {
    const { GET } = await import("@/app/api/v1/hosts/route");
    const response = await GET(new Request(`${ORIGIN}/api`, { headers: { ...credentials.admin, host: "gpudesk.test" } }), { params: Promise.resolve({}) });
    const text = await response.text();
    expect(text).not.toMatch(/tokenHash|gpd_host_[A-Za-z0-9_-]{20}/);
    const tokens = await (await import("@/app/api/v1/tokens/route")).GET(
      new Request(`${ORIGIN}/api`, { headers: { ...credentials.member, host: "gpudesk.test" } }),
      { params: Promise.resolve({}) },
    );
    expect(await tokens.text()).not.toMatch(/tokenHash|gpd_pat_[A-Za-z0-9_-]{20}/);
  });
});
