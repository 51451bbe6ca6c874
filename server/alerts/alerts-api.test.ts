import { beforeAll, describe, expect, it } from "vitest";
import type { AlertPage, AlertSummary, AlertUpdate, AlertView } from "@/lib/domain/alerts";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The alerts API through its route handlers, with real personal tokens:
 * who sees which alert, the filters, the badge's numbers and acknowledging.
 */

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

let tokens: { bookedBy: string; intruder: string; bystander: string; admin: string };
let ids: { bookedBy: string; intruder: string };
let alerts: { conflict: string; idle: string; closed: string; others: string };
let routes: {
  list: typeof import("@/app/api/v1/alerts/route");
  summary: typeof import("@/app/api/v1/alerts/summary/route");
  acknowledge: typeof import("@/app/api/v1/alerts/[id]/acknowledge/route");
};
const announced: AlertUpdate[] = [];

beforeAll(async () => {
  await useTestDatabase();
  const { createUser } = await import("@/server/auth/users");
  const { createPersonalToken } = await import("@/server/auth/tokens");
  const { db } = await import("@/server/core/db");
  const { onAlertChanged } = await import("@/server/alerts/alert-events");
  onAlertChanged((change) => announced.push(change));
  const [bookedBy, intruder, bystander, admin] = await Promise.all([
    createUser({ username: "alice", password: "alice-password" }),
    createUser({ username: "bob", password: "bob-password" }),
    createUser({ username: "carol", password: "carol-password" }),
    createUser({ username: "root", password: "root-password", role: "admin" }),
  ]);
  ids = { bookedBy: bookedBy.id, intruder: intruder.id };
  tokens = {
    bookedBy: (await createPersonalToken(bookedBy.id, "t")).token,
    intruder: (await createPersonalToken(intruder.id, "t")).token,
    bystander: (await createPersonalToken(bystander.id, "t")).token,
    admin: (await createPersonalToken(admin.id, "t")).token,
  };
  const host = await db().host.create({ data: { name: "node-a" }, select: { id: true } });
  const create = (data: { kind: string; userIds: string[]; openedAt: string; closedAt?: string; gpuIndex?: number; reservationId?: string }) =>
    db().alert.create({
      data: {
        kind: data.kind,
        subjectKey: `${data.kind}:GPU-${data.gpuIndex ?? 0}:${data.openedAt}`,
        hostId: host.id,
        gpuUuid: `GPU-${data.gpuIndex ?? 0}`,
        gpuIndex: data.gpuIndex ?? 0,
        reservationId: data.reservationId ?? null,
        userIds: JSON.stringify(data.userIds),
        message: `${data.kind} message`,
        evidence: JSON.stringify({ processes: [{ pid: 42, via: "via login bob" }] }),
        openedAt: new Date(data.openedAt),
        closedAt: data.closedAt ? new Date(data.closedAt) : null,
      },
      select: { id: true },
    });
  alerts = {
    conflict: (await create({ kind: "conflict", userIds: [bookedBy.id, intruder.id], openedAt: "2026-11-30T10:00:00Z", gpuIndex: 2, reservationId: "res-1" })).id,
    idle: (await create({ kind: "idle_booking", userIds: [bookedBy.id], openedAt: "2026-11-30T09:00:00Z", gpuIndex: 7, reservationId: "res-1" })).id,
    closed: (await create({ kind: "memory_pressure", userIds: [bookedBy.id], openedAt: "2026-11-30T08:00:00Z", closedAt: "2026-11-30T08:05:00Z" })).id,
    others: (await create({ kind: "unbooked_use", userIds: [], openedAt: "2026-11-30T07:00:00Z" })).id,
  };
  routes = {
    list: await import("@/app/api/v1/alerts/route"),
    summary: await import("@/app/api/v1/alerts/summary/route"),
    acknowledge: await import("@/app/api/v1/alerts/[id]/acknowledge/route"),
  };
}, 120_000);

async function call<T>(handler: unknown, init: { method?: string; token?: string; query?: string; params?: Record<string, string> }) {
  const request = new Request(`http://gpudesk.test/api/v1/alerts${init.query ?? ""}`, {
    method: init.method ?? "GET",
    headers: init.token ? { authorization: `Bearer ${init.token}` } : {},
  });
  const response = await (handler as Handler)(request, { params: Promise.resolve(init.params ?? {}) });
  return { status: response.status, body: (await response.json()) as T };
}

const listed = (page: AlertPage) => page.alerts.map((alert) => alert.kind);

describe("GET /api/v1/alerts", () => {
  it("gives a booker the open alerts about their GPUs, newest first, with people, GPU, host and evidence", async () => {
    const { status, body } = await call<AlertPage>(routes.list.GET, { token: tokens.bookedBy });
    expect(status).toBe(200);
    expect(listed(body)).toEqual(["conflict", "idle_booking"]);
    expect(body.alerts[0]).toMatchObject({
      host: { name: "node-a" },
      gpu: { uuid: "GPU-2", index: 2 },
      people: [{ username: "alice" }, { username: "bob" }],
      evidence: { processes: [{ pid: 42, via: "via login bob" }] },
      openedAt: "2026-11-30T10:00:00.000Z",
      closedAt: null,
    });
  });

  it("shows the intruder the conflict they are part of, and a bystander nothing", async () => {
    expect(listed((await call<AlertPage>(routes.list.GET, { token: tokens.intruder })).body)).toEqual(["conflict"]);
    expect(listed((await call<AlertPage>(routes.list.GET, { token: tokens.bystander })).body)).toEqual([]);
  });

  it("gives admins everything, closed ones with state=all, and filters by kind or by involvement", async () => {
    expect(listed((await call<AlertPage>(routes.list.GET, { token: tokens.admin })).body)).toEqual(["conflict", "idle_booking", "unbooked_use"]);
    const all = await call<AlertPage>(routes.list.GET, { token: tokens.admin, query: "?state=all" });
    expect(listed(all.body)).toEqual(["conflict", "idle_booking", "memory_pressure", "unbooked_use"]);
    expect(all.body.alerts[2].closedAt).toBe("2026-11-30T08:05:00.000Z");
    expect(listed((await call<AlertPage>(routes.list.GET, { token: tokens.admin, query: "?state=all&kind=memory_pressure" })).body)).toEqual(["memory_pressure"]);
    expect(listed((await call<AlertPage>(routes.list.GET, { token: tokens.admin, query: "?mine=1" })).body)).toEqual([]);
  });

  it("pages with a cursor", async () => {
    const first = await call<AlertPage>(routes.list.GET, { token: tokens.admin, query: "?state=all&limit=3" });
    expect(first.body.alerts).toHaveLength(3);
    const second = await call<AlertPage>(routes.list.GET, { token: tokens.admin, query: `?state=all&limit=3&cursor=${first.body.nextCursor}` });
    expect(listed(second.body)).toEqual(["unbooked_use"]);
    expect(second.body.nextCursor).toBeNull();
  });

  it("answers 400 for a bad state and 401 without a token", async () => {
    expect((await call(routes.list.GET, { token: tokens.admin, query: "?state=maybe" })).status).toBe(400);
    expect((await call(routes.list.GET, {})).status).toBe(401);
  });
});

describe("acknowledging and the badge", () => {
  it("lets the booker acknowledge their idle booking, nobody but an admin the conflict; the alert leaves the badge but stays open", async () => {
    expect((await call<AlertSummary>(routes.summary.GET, { token: tokens.bookedBy })).body).toEqual({ open: 2, unacknowledged: 2 });
    expect((await call<AlertSummary>(routes.summary.GET, { token: tokens.admin })).body).toEqual({ open: 3, unacknowledged: 3 });

    // Someone not involved cannot, and learns nothing about the alert.
    expect((await call(routes.acknowledge.POST, { method: "POST", token: tokens.bystander, params: { id: alerts.conflict } })).status).toBe(404);

    // A conflict is misuse: neither the intruder nor the booker may hush it, only an admin.
    expect((await call(routes.acknowledge.POST, { method: "POST", token: tokens.intruder, params: { id: alerts.conflict } })).status).toBe(403);
    expect((await call(routes.acknowledge.POST, { method: "POST", token: tokens.bookedBy, params: { id: alerts.conflict } })).status).toBe(403);

    const { status, body } = await call<AlertView>(routes.acknowledge.POST, { method: "POST", token: tokens.bookedBy, params: { id: alerts.idle } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: alerts.idle, bookedById: ids.bookedBy, closedAt: null, acknowledgedBy: { id: ids.bookedBy } });
    expect(announced.at(-1)).toMatchObject({ event: "acknowledged", alert: { id: alerts.idle } });

    expect((await call<AlertSummary>(routes.summary.GET, { token: tokens.bookedBy })).body).toEqual({ open: 2, unacknowledged: 1 });
    expect((await call<AlertSummary>(routes.summary.GET, { token: tokens.bystander })).body).toEqual({ open: 0, unacknowledged: 0 });
    // An admin may acknowledge anything.
    expect((await call(routes.acknowledge.POST, { method: "POST", token: tokens.admin, params: { id: alerts.others } })).status).toBe(200);
  });
});
