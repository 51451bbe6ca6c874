import { beforeAll, describe, expect, it } from "vitest";
import { FleetState } from "@/server/fleet/fleet-state";
import { uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/** The usage routes called in-process: who gets what, and in which shape. */

const ORIGIN = "http://gpudesk.test";
let admin: Record<string, string>;
let member: Record<string, string>;
let display: Record<string, string>;
let memberId: string;
let gpuUuid: string;

beforeAll(async () => {
  await useTestDatabase();
  const { setRuntime } = await import("@/server/runtime/runtime");
  setRuntime({ fleet: new FleetState({ offlineAfterMs: 5000, simulated: true }), ingest: {} as never, disconnectAgents: () => {} });
  const { createUser } = await import("@/server/auth/users");
  const { createPersonalToken, createDisplay } = await import("@/server/auth/tokens");
  const { fillSimulatedFleetHistory } = await import("@/server/history/demo-history");
  const { db } = await import("@/server/core/db");
  const a = await createUser({ username: uniqueName("usageadmin").replace(/-/g, ""), password: "admin-password", role: "admin" });
  const m = await createUser({ username: uniqueName("usagemember").replace(/-/g, ""), password: "member-password" });
  memberId = m.id;
  admin = { authorization: `Bearer ${(await createPersonalToken(a.id, "t")).token}` };
  member = { authorization: `Bearer ${(await createPersonalToken(m.id, "t")).token}` };
  display = { authorization: `Bearer ${(await createDisplay(uniqueName("wall"))).token}` };
  await fillSimulatedFleetHistory({ seed: 42, spanMs: 90 * 60_000, nowMs: Date.now() });
  gpuUuid = (await db().gpu.findFirstOrThrow({ select: { uuid: true } })).uuid;
}, 60_000);

type Handler<P> = (request: Request, context: { params: Promise<P> }) => Promise<Response>;

async function call<P>(handler: Handler<P>, url: string, headers: Record<string, string>, params?: P): Promise<Response> {
  return handler(new Request(`${ORIGIN}${url}`, { headers: { host: "gpudesk.test", ...headers } }), { params: Promise.resolve((params ?? {}) as P) });
}

describe("usage API", () => {
  it("gives admins the fleet and members their own bookings; nobody else anything", async () => {
    const { GET } = await import("@/app/api/v1/usage/route");
    const fleet = await call(GET, "/api/v1/usage?range=1h", admin);
    expect(fleet.status).toBe(200);
    const report = (await fleet.json()) as { scope: string; hosts: unknown[]; includesSimulated: boolean; range: { source: string } };
    expect(report.scope).toBe("all");
    expect(report.hosts).toHaveLength(4);
    expect(report.includesSimulated).toBe(true);
    expect(report.range.source).toBe("minute");

    const own = (await (await call(GET, "/api/v1/usage?range=1h&scope=all", member)).json()) as { scope: string; hosts: unknown[] };
    expect(own.scope).toBe("self");
    expect(own.hosts).toHaveLength(0);

    expect((await call(GET, "/api/v1/usage", {})).status).toBe(401);
    expect((await call(GET, "/api/v1/usage", display)).status).toBe(403);
    const bad = await call(GET, "/api/v1/usage?range=custom&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", admin);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { fields: Record<string, string> } }).error.fields).toHaveProperty("to");
  });

  it("exports CSV with a file name", async () => {
    const { GET } = await import("@/app/api/v1/usage/export/route");
    const response = await call(GET, "/api/v1/usage/export?range=1h&table=hosts", admin);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="gpudesk-usage-hosts-\d{8}T\d{4}Z-\d{8}T\d{4}Z\.csv"$/);
    const lines = (await response.text()).trimEnd().split("\r\n");
    expect(lines[0]).toMatch(/^host,gpus,reported_gpu_hours,/);
    expect(lines.slice(1).map((line) => line.split(",")[0]).sort()).toEqual(["sim-4090-a", "sim-a100-a", "sim-h100-a", "sim-h100-mig"]);
  });

  it("answers a GPU's history to any signed-in person, and 404 for an unknown GPU", async () => {
    const { GET } = await import("@/app/api/v1/gpus/[uuid]/history/route");
    const response = await call(GET, `/api/v1/gpus/${gpuUuid}/history?range=1h`, member, { uuid: gpuUuid });
    expect(response.status).toBe(200);
    const history = (await response.json()) as { points: { utilAvg: number | null }[]; range: { bucketMs: number } };
    expect(history.range.bucketMs).toBe(60_000);
    expect(history.points.filter((p) => p.utilAvg !== null).length).toBeGreaterThan(50);
    expect((await call(GET, "/api/v1/gpus/GPU-none/history", member, { uuid: "GPU-none" })).status).toBe(404);
    expect((await call(GET, `/api/v1/gpus/${gpuUuid}/history`, {}, { uuid: gpuUuid })).status).toBe(401);
  });

  it("answers booking efficiency for the asker's own bookings", async () => {
    const { GET } = await import("@/app/api/v1/usage/reservations/route");
    const response = await call(GET, `/api/v1/usage/reservations?ids=nope,${memberId}`, member);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ efficiency: [] });
    expect((await call(GET, "/api/v1/usage/reservations", member)).status).toBe(400);
  });
});
