import { beforeAll, describe, expect, it } from "vitest";
import { FleetState } from "@/server/fleet/fleet-state";
import { makeSnapshot } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * A booking across nodes through the REST API, in-process with real
 * personal tokens and live readings: made, read, extended, kept and
 * released as one booking, every part at once.
 */

type Context = { params: Promise<Record<string, string>> };
type Handler = (request: Request, context: Context) => Promise<Response>;

let token: string;
let hostNames: string[];
let routes: {
  collection: typeof import("@/app/api/v1/reservations/route");
  item: typeof import("@/app/api/v1/reservations/[id]/route");
  release: typeof import("@/app/api/v1/reservations/[id]/release/route");
  audit: typeof import("@/app/api/v1/audit/route");
};

beforeAll(async () => {
  await useTestDatabase();
  const { setRuntime } = await import("@/server/runtime/runtime");
  const fleet = new FleetState({ offlineAfterMs: 60_000, simulated: true });
  setRuntime({ fleet, ingest: {} as never, disconnectAgents: () => {} });
  const { createUser } = await import("@/server/auth/users");
  const { createPersonalToken } = await import("@/server/auth/tokens");
  const { createTestHost } = await import("@/server/testing/booking-fixtures");
  const member = await createUser({ username: "nina", password: "nina-password" });
  token = (await createPersonalToken(member.id, "api test")).token;
  const hosts = [await createTestHost(4, "dgx"), await createTestHost(4, "dgx")];
  hostNames = hosts.map((host) => host.name);
  for (const host of hosts) {
    // Both report, idle: "any N nodes" hands out only GPUs that are free now.
    fleet.connectHost(host.id, host.name, true);
    fleet.ingest(host.id, makeSnapshot(host.gpus.map((gpu) => ({ ...gpu, utilizationGpuPct: 0 })), Date.now(), { host: { name: host.name, driverVersion: "580", cudaVersion: "13.0" } }));
  }
  routes = {
    collection: await import("@/app/api/v1/reservations/route"),
    item: await import("@/app/api/v1/reservations/[id]/route"),
    release: await import("@/app/api/v1/reservations/[id]/release/route"),
    audit: await import("@/app/api/v1/audit/route"),
  };
}, 60_000);

async function call(handler: unknown, init: { method: string; body?: unknown; params?: Record<string, string>; query?: string }) {
  const request = new Request(`http://gpudesk.test/api/v1/x${init.query ?? ""}`, {
    method: init.method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const response = await (handler as Handler)(request, { params: Promise.resolve(init.params ?? {}) });
  return { status: response.status, body: await response.json() };
}

describe("a booking across nodes over REST", () => {
  it("refuses a request that is not one with the field to fix, and books nothing", async () => {
    const one = await call(routes.collection.POST, { method: "POST", body: { nodes: 1, gpusPerNode: 4, durationMinutes: 60, purpose: "x" } });
    expect(one.status).toBe(400);
    expect(one.body.error.fields).toMatchObject({ nodes: "Across nodes means 2 nodes or more" });
    const both = await call(routes.collection.POST, { method: "POST", body: { nodes: 2, parts: [{ host: "a", gpus: 1 }, { host: "b", gpus: 1 }], durationMinutes: 60, purpose: "x" } });
    expect(both.status).toBe(400);
    expect(both.body.error.fields.parts).toBe("Give nodes and GPUs per node, or the parts, not both");
    const unknown = await call(routes.collection.POST, { method: "POST", body: { parts: [{ host: hostNames[0], gpus: 1 }, { host: "no-such-node", gpus: 1 }], durationMinutes: 60, purpose: "x" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toBe("There is no host named no-such-node");
  });

  it("books, reads, extends and releases both parts as one booking", async () => {
    const made = await call(routes.collection.POST, { method: "POST", body: { nodes: 2, gpusPerNode: 4, model: "H100", durationMinutes: 60, purpose: "llm pretrain" } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ nodeCount: 2, label: "2 × 4 H100", warnings: [] });
    const ids: string[] = made.body.parts.map((part: { id: string }) => part.id);
    expect(made.body.parts.map((part: { host: { name: string } }) => part.host.name)).toEqual(hostNames);
    expect(made.body.parts[1].launch.node).toMatchObject({ nodeRank: 1, worldSize: 8, masterAddr: hostNames[0] });

    const read = await call(routes.item.GET, { method: "GET", params: { id: ids[1] } });
    expect(read.status).toBe(200);
    expect(read.body.multiNode).toMatchObject({ id: made.body.id, partLabel: "2 × 4 H100, node 2 of 2" });

    const extended = await call(routes.item.PATCH, { method: "PATCH", params: { id: ids[1] }, body: { addMinutes: 30 } });
    expect(extended.status, JSON.stringify(extended.body)).toBe(200);
    for (const id of ids) {
      const part = await call(routes.item.GET, { method: "GET", params: { id } });
      expect(part.body.endsAt).toBe(extended.body.endsAt);
    }

    const released = await call(routes.release.POST, { method: "POST", params: { id: ids[0] } });
    expect(released.status).toBe(200);
    for (const id of ids) {
      const part = await call(routes.item.GET, { method: "GET", params: { id } });
      expect(part.body.state).toBe("released");
    }

    // The list shows the parts, each naming the one booking; the audit log names it once per act.
    const list = await call(routes.collection.GET, { method: "GET", query: "?state=all" });
    const listed = list.body.reservations.filter((view: { multiNode?: { id: string } }) => view.multiNode?.id === made.body.id);
    expect(listed).toHaveLength(2);
    const { db } = await import("@/server/core/db");
    const audit = await db().auditLog.findMany({ where: { entityType: "reservation", entityId: { in: ids } }, orderBy: { at: "asc" }, select: { action: true, entityId: true } });
    expect(audit.map((entry) => entry.action)).toEqual(["reservation.create", "reservation.extend", "reservation.release"]);
    expect(new Set(audit.map((entry) => entry.entityId))).toEqual(new Set([made.body.id]));
  });
});
