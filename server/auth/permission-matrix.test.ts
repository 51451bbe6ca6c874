import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FleetState } from "@/server/fleet/fleet-state";
import { repoRoot } from "@/server/core/paths";
import { ACTIONS, type MatrixWorld, WHO, type Who } from "@/server/testing/permission-actions";
import { useTestDatabase } from "@/server/testing/test-db";
import { authRouteCall } from "@/server/testing/auth-route";
import { UNTYPEABLE_MESSAGE } from "@/lib/domain/plain-text";

/**
 * Every kind of caller against every method of every /api/v1 route (the
 * table is server/testing/permission-actions.ts), with the exact outcome.
 * Route handlers are called in-process with real requests, a real database
 * and real better-auth sessions. The route files are read from app/api/v1,
 * so that a new route without a row in the table fails here.
 */

const ORIGIN = "http://gpudesk.test";
const API_DIR = path.join(repoRoot, "app/api/v1");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

let credentials: Record<Who, Record<string, string>>;
let world: MatrixWorld;

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

/** "METHOD /api/v1/…" for every handler that the route files under app/api/v1 export. */
function routeMethods(): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name === "route.ts") {
        const source = readFileSync(full, "utf8");
        const route = `/${path.relative(path.join(repoRoot, "app"), dir).split(path.sep).join("/")}`;
        for (const method of METHODS) {
          if (new RegExp(`export (const|async function|function) ${method}\\b`).test(source)) found.push(`${method} ${route}`);
        }
      }
    }
  };
  visit(API_DIR);
  return found.sort();
}

/** What a wall screen must never learn, whichever route it asks (issue 22, item 3): the matrix's fleet holds each of them. */
const MEMBER_ONLY = ["matrix-secret-purpose", "secret-train.py", "mia-unix"];

let fleet: FleetState;

beforeAll(async () => {
  await useTestDatabase();
  const { setRuntime } = await import("@/server/runtime/runtime");
  fleet = new FleetState({ offlineAfterMs: 60_000, simulated: false });
  setRuntime({ fleet, ingest: {} as never, disconnectAgents: () => {} });
  const { createUser, updateUser } = await import("@/server/auth/users");
  const { createPersonalToken, createDisplay, revokePersonalToken } = await import("@/server/auth/tokens");
  const { createHost } = await import("@/server/hosts/host-registry");
  const { createTestHost } = await import("@/server/testing/booking-fixtures");
  const member = await createUser({ username: "mia", password: "mia-password" });
  const other = await createUser({ username: "otto", password: "otto-password" });
  const admin = await createUser({ username: "ada", password: "ada-password", role: "admin" });
  const leaver = await createUser({ username: "dora", password: "dora-password" });
  const memberToken = await createPersonalToken(member.id, "matrix");
  const revoked = await createPersonalToken(member.id, "revoked");
  const adminPrincipal = { kind: "user", via: "token", user: { ...admin, role: "admin" } } as const;
  await revokePersonalToken(revoked.summary.id, adminPrincipal);
  // A person disabled by an admin after making a token: the token must stop working with them.
  const disabled = await createPersonalToken(leaver.id, "before leaving");
  await updateUser(leaver.id, { disabled: true }, adminPrincipal);
  const display = await createDisplay("matrix-wall");
  const host = await createHost("matrix-node");
  const spare = await createHost("matrix-spare");
  const bookable = await createTestHost(2, "matrix-gpus");
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  credentials = {
    anonymous: {},
    member: { cookie: await cookieFor("mia", "mia-password") },
    otherMember: { cookie: await cookieFor("otto", "otto-password") },
    admin: { cookie: await cookieFor("ada", "ada-password") },
    display: bearer(display.token),
    host: bearer(host.token),
    revoked: bearer(revoked.token),
    disabled: bearer(disabled.token),
  };
  const actor = (user: typeof member) => ({ id: user.id, username: user.username, name: user.name, role: user.role, unixLogin: user.unixLogin });
  // The fleet the routes read: a GPU of the bookable host, booked by Mia now and running her job.
  const { createBooking } = await import("@/server/bookings/commands/create-booking");
  const booked = await createBooking(actor(member), { host: bookable.name, gpus: [0], durationMinutes: 60, purpose: "matrix-secret-purpose" });
  MEMBER_ONLY.push(booked.id);
  fleet.connectHost(bookable.id, bookable.name, false);
  const process = { gpuUuid: bookable.gpus[0].uuid, pid: 4242, name: "python", usedMemoryMiB: 1024, user: "mia-unix", command: "python secret-train.py", startedAt: new Date().toISOString(), container: null, slurmJobId: null, reservationId: null };
  fleet.ingest(bookable.id, { host: { name: bookable.name, driverVersion: "580.159.04", cudaVersion: "13.0" }, gpus: bookable.gpus, processes: [process], sampledAt: new Date().toISOString() });
  world = {
    member: actor(member),
    otherMember: actor(other),
    admin: actor(admin),
    memberTokenId: memberToken.summary.id,
    hostName: bookable.name,
    gpuUuid: bookable.gpus[0].uuid,
    spareHostId: spare.host.id,
  };
});

// Route handlers type their params precisely; a method signature lets the table hold them all.
type Handler = {
  call(request: Request, context: { params: Promise<Record<string, string | string[]>> }): Promise<Response>;
}["call"];

async function handlerOf(route: string): Promise<Handler> {
  const [method, routePath] = route.split(" ");
  const module = (await import(path.join(repoRoot, "app", routePath, "route.ts"))) as Record<string, Handler>;
  const handler = module[method];
  if (!handler) throw new Error(`${routePath}/route.ts exports no ${method}`);
  return handler;
}

describe("permission matrix", () => {
  it("has a row for every method of every /api/v1 route", () => {
    const listed = new Set(ACTIONS.map((action) => action.route));
    expect(routeMethods().filter((route) => !listed.has(route))).toEqual([]);
    // And no row for a route that is gone.
    expect([...listed].filter((route) => !routeMethods().includes(route))).toEqual([]);
  });

  for (const action of ACTIONS) {
    const name = action.variant ? `${action.route} (${action.variant})` : action.route;
    for (const who of WHO) {
      it(`${name} as ${who}`, async () => {
        const handler = await handlerOf(action.route);
        const { params = {}, body, query = action.query ?? "" } = (await action.prepare?.(world)) ?? {};
        const method = action.route.split(" ")[0];
        const request = new Request(`${ORIGIN}/api${query}`, {
          method,
          headers: { ...credentials[who], origin: ORIGIN, host: "gpudesk.test", ...(body ? { "content-type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        const response = await handler(request, { params: Promise.resolve(params) });
        const expected = action.expect[who];
        const answer = await response.clone().text();
        if (expected === "ok") {
          expect(response.status, answer).toBeGreaterThanOrEqual(200);
          expect(response.status, answer).toBeLessThan(300);
          // A display token gets the display scope or nothing: no purpose, process, login or booking id, anywhere.
          if (who === "display") for (const secret of MEMBER_ONLY) expect(answer, `${secret} in ${name}`).not.toContain(secret);
        } else {
          expect(response.status, answer).toBe(expected);
          const payload = (await response.json()) as { error: { code: string; message: string } };
          expect(payload.error.code).toBe({ 401: "unauthorized", 403: "forbidden", 404: "not_found" }[expected]);
        }
      });
    }
  }

  it("the fleet's member answer holds what the display scope leaves out (so the display check above can fail)", async () => {
    const { GET } = await import("@/app/api/v1/fleet/route");
    const member = await GET(new Request(`${ORIGIN}/api`, { headers: { ...credentials.member, host: "gpudesk.test" } }), { params: Promise.resolve({}) });
    const text = await member.text();
    for (const secret of MEMBER_ONLY) expect(text).toContain(secret);
    const display = await GET(new Request(`${ORIGIN}/api`, { headers: { ...credentials.display, host: "gpudesk.test" } }), { params: Promise.resolve({}) });
    const scoped = (await display.json()) as { gpus: { uuid: string; state: string; bookedByName: string | null }[] };
    expect(scoped.gpus.find((gpu) => gpu.uuid === world.gpuUuid)).toMatchObject({ uuid: world.gpuUuid, state: expect.any(String), bookedByName: expect.any(String) });
  });

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

/**
 * The query parameters each GET route reads (its schema's names), so that
 * the walk below sends a control character in every one of them too.
 */
const QUERY_INPUTS: Record<string, string[]> = {
  "GET /api/v1/reservations": ["all", "state", "limit"],
  "GET /api/v1/audit": ["limit", "cursor", "kind", "person", "since", "until", "entityType", "entityId"],
  "GET /api/v1/alerts": ["state", "kind", "hostId", "gpuUuid", "mine", "since", "limit", "cursor"],
  "GET /api/v1/webhook-deliveries": ["status", "mine", "limit"],
  "GET /api/v1/webhooks": ["scope"],
  "GET /api/v1/me/limits": ["team"],
  "GET /api/v1/usage": ["range", "from", "to", "by", "scope", "table"],
  "GET /api/v1/usage/export": ["range", "from", "to", "by", "scope", "table"],
  "GET /api/v1/usage/teams": ["range", "from", "to", "team", "since", "format"],
  "GET /api/v1/usage/reservations": ["ids"],
  "GET /api/v1/gpus/[uuid]/history": ["range", "from", "to"],
  "GET /api/v1/waitlist": ["mine"],
};

/** Every text leaf of a JSON value, by its field path ("booking.purpose", "parts.0.host"), with a setter for a copy. */
function textLeaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value === "string") return [path];
  if (Array.isArray(value)) return value.flatMap((item, index) => textLeaves(item, [...path, index]));
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([key, item]) => textLeaves(item, [...path, key]));
  return [];
}

function poisoned<T>(value: T, path: (string | number)[]): T {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  at[last] = `${String(at[last])}\u0000x`;
  return copy as T;
}

/** One call's inputs, before it is sent. */
type CallInput = { params: Record<string, string | string[]>; body: unknown; query: string };

describe("a control character in any text input of any route (issue 48, item 6)", () => {
  it("every GET route that reads a query string is in QUERY_INPUTS", () => {
    const reading = routeMethods().filter((route) => {
      const [method, routePath] = route.split(" ");
      return method === "GET" && readFileSync(path.join(repoRoot, "app", routePath, "route.ts"), "utf8").includes("searchParams");
    });
    expect(reading.filter((route) => !(route in QUERY_INPUTS))).toEqual([]);
  });

  for (const action of ACTIONS) {
    const name = action.variant ? `${action.route} (${action.variant})` : action.route;
    it(`${name}: 400 naming the field, never 500`, async () => {
      const handler = await handlerOf(action.route);
      const method = action.route.split(" ")[0];
      // As someone the route answers (an admin where it may), so that the input reaches what reads it.
      const who = (["admin", "member", "anonymous", "display"] as const).find((caller) => action.expect[caller] === "ok") ?? "admin";
      const prepared = async () => (await action.prepare?.(world)) ?? {};
      const { params: shapeParams = {}, body: shapeBody } = await prepared();
      const inputs: { field: string; make: (input: CallInput) => CallInput }[] = [
        ...textLeaves(shapeBody).map((leaf) => ({ field: leaf.join("."), make: (input: CallInput) => ({ ...input, body: poisoned(input.body, leaf) }) })),
        ...textLeaves(shapeParams).map((leaf) => ({ field: leaf.join("."), make: (input: CallInput) => ({ ...input, params: poisoned(input.params, leaf) }) })),
        ...(QUERY_INPUTS[action.route] ?? []).map((parameter) => ({
          field: parameter,
          make: (input: CallInput) => ({ ...input, query: `${input.query}${input.query.includes("?") ? "&" : "?"}${parameter}=1%00x` }),
        })),
      ];
      for (const input of inputs) {
        const fresh = await prepared();
        const { params, body, query } = input.make({ params: fresh.params ?? {}, body: fresh.body, query: fresh.query ?? action.query ?? "" });
        const request = new Request(`${ORIGIN}/api${query}`, {
          method,
          headers: { ...credentials[who], origin: ORIGIN, host: "gpudesk.test", ...(body ? { "content-type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        const response = await handler(request, { params: Promise.resolve(params) });
        const answer = (await response.json()) as { error?: { code: string; fields?: Record<string, string> } };
        expect({ field: input.field, status: response.status, code: answer.error?.code, named: answer.error?.fields?.[input.field] }).toEqual({
          field: input.field,
          status: 400,
          code: "bad_request",
          named: UNTYPEABLE_MESSAGE,
        });
      }
    });
  }

  it("the sign-in form's username and password, before anything counts or looks them up", async () => {
    const route = await import("@/app/api/auth/[...all]/route");
    for (const [field, body] of [
      ["username", { username: "ada\u0000", password: "ada-password" }],
      ["username", { username: "\u0000", password: "whatever-password" }],
      ["password", { username: "ada", password: "ada-pass\u0000word" }],
    ] as const) {
      const response = await authRouteCall(route, "/sign-in/username", { body });
      const answer = (await response.json()) as { error?: { code: string; fields?: Record<string, string> } };
      expect({ status: response.status, code: answer.error?.code, named: answer.error?.fields?.[field] }).toEqual({ status: 400, code: "bad_request", named: UNTYPEABLE_MESSAGE });
    }
  });
});
