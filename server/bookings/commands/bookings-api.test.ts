import { beforeAll, describe, expect, it } from "vitest";
import { FleetState } from "@/server/fleet/fleet-state";
import { makeSnapshot } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The bookings API through its route handlers, in-process, with real
 * personal tokens: status codes, body shapes and who may do what.
 */

type Context = { params: Promise<Record<string, string>> };
type Handler = (request: Request, context: Context) => Promise<Response>;

const ORIGIN = "http://gpudesk.test";
let tokens: { member: string; other: string; admin: string };
let hostName: string;
let routes: {
  collection: typeof import("@/app/api/v1/reservations/route");
  item: typeof import("@/app/api/v1/reservations/[id]/route");
  release: typeof import("@/app/api/v1/reservations/[id]/release/route");
  cancel: typeof import("@/app/api/v1/reservations/[id]/cancel/route");
  policies: typeof import("@/app/api/v1/policies/route");
  audit: typeof import("@/app/api/v1/audit/route");
};

// Migrating a fresh database spawns Prisma's CLI: slow on a busy machine.
beforeAll(async () => {
  await useTestDatabase();
  const { setRuntime } = await import("@/server/runtime/runtime");
  const fleet = new FleetState({ offlineAfterMs: 60_000, simulated: true });
  setRuntime({ fleet, ingest: {} as never, disconnectAgents: () => {} });
  const { createUser } = await import("@/server/auth/users");
  const { createPersonalToken } = await import("@/server/auth/tokens");
  const { createTestHost } = await import("@/server/testing/booking-fixtures");
  const [member, other, admin] = await Promise.all([
    createUser({ username: "alice", password: "alice-password" }),
    createUser({ username: "bob", password: "bob-password" }),
    createUser({ username: "root", password: "root-password", role: "admin" }),
  ]);
  tokens = {
    member: (await createPersonalToken(member.id, "api test")).token,
    other: (await createPersonalToken(other.id, "api test")).token,
    admin: (await createPersonalToken(admin.id, "api test")).token,
  };
  const host = await createTestHost(4);
  hostName = host.name;
  // The host reports, idle: a GPU booked from now on is suggested only where the live reading says it is free.
  fleet.connectHost(host.id, host.name, true);
  fleet.ingest(host.id, makeSnapshot(host.gpus, Date.now(), { host: { name: host.name, driverVersion: "580", cudaVersion: "13.0" } }));
  routes = {
    collection: await import("@/app/api/v1/reservations/route"),
    item: await import("@/app/api/v1/reservations/[id]/route"),
    release: await import("@/app/api/v1/reservations/[id]/release/route"),
    cancel: await import("@/app/api/v1/reservations/[id]/cancel/route"),
    policies: await import("@/app/api/v1/policies/route"),
    audit: await import("@/app/api/v1/audit/route"),
  };
}, 60_000);

async function call(handler: unknown, init: { method: string; token?: string; body?: unknown; params?: Record<string, string>; query?: string }) {
  const request = new Request(`${ORIGIN}/api/v1/x${init.query ?? ""}`, {
    method: init.method,
    headers: { "content-type": "application/json", ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const response = await (handler as Handler)(request, { params: Promise.resolve(init.params ?? {}) });
  return { status: response.status, body: await response.json() };
}

describe("POST /api/v1/reservations", () => {
  it("answers 201 with the id, the GPUs and the launch settings", async () => {
    const { status, body } = await call(routes.collection.POST, {
      method: "POST",
      token: tokens.member,
      body: { host: hostName, gpus: [0, 1], durationMinutes: 60, purpose: "api" },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ state: "active", host: { name: hostName }, bookedBy: { username: "alice" }, launch: { cudaVisibleDevices: "0,1" } });
    // The name of before 0.4, deprecated, beside the new one (docs/api.md).
    expect(body.holder).toEqual(body.bookedBy); // the deprecated name
    expect(body.gpus).toEqual([expect.objectContaining({ index: 0, uuid: expect.stringMatching(/^GPU-/) }), expect.objectContaining({ index: 1 })]);
    expect(typeof body.id).toBe("string");
  });

  it("answers 409 with the booking in the way and what is free instead", async () => {
    const { status, body } = await call(routes.collection.POST, {
      method: "POST",
      token: tokens.other,
      body: { host: hostName, gpus: [1, 2], durationMinutes: 30, purpose: "clash" },
    });
    expect(status).toBe(409);
    expect(body.error).toMatchObject({
      code: "conflict",
      conflicts: [{ gpuIndex: 1, bookedBy: { username: "alice" }, holder: { username: "alice" }, purpose: "api" }], // holder: deprecated
      suggestion: { hostName, freeGpuIndices: [2, 3] },
    });
    expect(body.error.message).toMatch(/^GPU 1 on .* is booked by alice until \d{4}-\d\d-\d\dT/);
  });

  it("answers 400 with a message per field, and 401 without credentials", async () => {
    const bad = await call(routes.collection.POST, { method: "POST", token: tokens.member, body: { gpus: [0], purpose: "" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields).toMatchObject({ host: expect.any(String), purpose: expect.any(String), durationMinutes: expect.any(String) });
    const anonymous = await call(routes.collection.POST, { method: "POST", body: { count: 1, durationMinutes: 5, purpose: "x" } });
    expect(anonymous.status).toBe(401);
  });
});

describe("reading and changing bookings", () => {
  it("lets the booker read, extend and release; others get 404; only admins cancel", async () => {
    const created = await call(routes.collection.POST, {
      method: "POST",
      token: tokens.member,
      body: { host: hostName, gpus: [3], durationMinutes: 60, purpose: "lifecycle" },
    });
    const params = { id: created.body.id };
    expect((await call(routes.item.GET, { method: "GET", token: tokens.member, params })).body.launch.cudaVisibleDevices).toBe("3");
    expect((await call(routes.item.GET, { method: "GET", token: tokens.other, params })).status).toBe(404);

    const extended = await call(routes.item.PATCH, { method: "PATCH", token: tokens.member, params, body: { addMinutes: 30 } });
    expect(extended.status).toBe(200);
    expect(Date.parse(extended.body.endsAt) - Date.parse(created.body.endsAt)).toBe(30 * 60_000);
    expect((await call(routes.item.PATCH, { method: "PATCH", token: tokens.other, params, body: { addMinutes: 30 } })).status).toBe(404);

    expect((await call(routes.cancel.POST, { method: "POST", token: tokens.member, params, body: { reason: "x" } })).status).toBe(403);
    const noReason = await call(routes.cancel.POST, { method: "POST", token: tokens.admin, params, body: {} });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.fields).toHaveProperty("reason");

    const released = await call(routes.release.POST, { method: "POST", token: tokens.member, params });
    expect(released.body).toMatchObject({ state: "released", status: "released" });
    expect((await call(routes.release.POST, { method: "POST", token: tokens.member, params })).status).toBe(409);
  });

  it("lists mine, and everyone's only for an admin", async () => {
    const alices = await call(routes.collection.POST, {
      method: "POST",
      token: tokens.member,
      body: { host: hostName, gpus: [3], durationMinutes: 60, purpose: "listed mine" },
    });
    const bobs = await call(routes.collection.POST, {
      method: "POST",
      token: tokens.other,
      body: { host: hostName, gpus: [2], durationMinutes: 60, purpose: "listed other" },
    });
    expect([alices.status, bobs.status]).toEqual([201, 201]);
    const ids = (list: { body: { reservations: { id: string }[] } }) => list.body.reservations.map((view) => view.id);

    const mine = await call(routes.collection.GET, { method: "GET", token: tokens.member });
    expect(ids(mine)).toContain(alices.body.id);
    expect(ids(mine)).not.toContain(bobs.body.id);
    expect(mine.body.reservations.every((view: { bookedBy: { username: string } }) => view.bookedBy.username === "alice")).toBe(true);
    expect((await call(routes.collection.GET, { method: "GET", token: tokens.other, query: "?all=1" })).status).toBe(403);

    const everyone = await call(routes.collection.GET, { method: "GET", token: tokens.admin, query: "?all=1&state=current" });
    expect(everyone.status).toBe(200);
    expect(everyone.body.reservations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: alices.body.id, bookedBy: expect.objectContaining({ username: "alice" }), purpose: "listed mine" }),
        expect.objectContaining({ id: bobs.body.id, bookedBy: expect.objectContaining({ username: "bob" }), purpose: "listed other" }),
      ]),
    );
    // "current": the released booking of the test above is not among them.
    expect(everyone.body.reservations.every((view: { state: string }) => view.state === "active" || view.state === "scheduled")).toBe(true);
    expect((await call(routes.collection.GET, { method: "GET", token: tokens.member, query: "?state=soon" })).status).toBe(400);
  });
});

describe("policies and audit", () => {
  it("lets everyone read the rules, only admins change them and read the audit log", async () => {
    expect((await call(routes.policies.GET, { method: "GET", token: tokens.member })).body).toMatchObject({ maxGpusPerUser: 8 });
    const rules = { maxDurationMinutes: 600, maxGpusPerUser: 4, maxAdvanceDays: 14 };
    expect((await call(routes.policies.PUT, { method: "PUT", token: tokens.member, body: rules })).status).toBe(403);
    const saved = await call(routes.policies.PUT, { method: "PUT", token: tokens.admin, body: rules });
    expect(saved.body).toMatchObject({ ...rules, updatedBy: { username: "root" } });
    expect((await call(routes.policies.PUT, { method: "PUT", token: tokens.admin, body: { maxDurationMinutes: 1 } })).status).toBe(400);

    expect((await call(routes.audit.GET, { method: "GET", token: tokens.member })).status).toBe(403);
    const log = await call(routes.audit.GET, { method: "GET", token: tokens.admin, query: "?limit=50" });
    const actions = log.body.entries.map((entry: { action: string }) => entry.action);
    expect(actions).toEqual(expect.arrayContaining(["policy.update", "reservation.create", "reservation.extend", "reservation.release"]));
  });
});
