import os from "node:os";
import { beforeAll, describe, expect, it } from "vitest";
import { FleetState } from "@/server/fleet/fleet-state";
import { useTestDatabase } from "@/server/testing/test-db";

const instance = `${os.hostname()}:${process.pid}:abc123`;
let GET: typeof import("@/app/api/health/route").GET;
let adminToken: string;

beforeAll(async () => {
  await useTestDatabase();
  const { setRuntime } = await import("@/server/runtime/runtime");
  setRuntime({
    fleet: new FleetState({ offlineAfterMs: 5000, simulated: true }),
    ingest: { counters: { acceptedSnapshots: 0, rejectedSnapshots: 0, rejectedMessages: 0, droppedByAgents: 0 } } as never,
    disconnectAgents: () => {},
    cluster: () => ({ instance, mode: "single", leader: true, jobs: ["waitlist"] }),
  });
  const { createUser } = await import("@/server/auth/users");
  const { createPersonalToken } = await import("@/server/auth/tokens");
  const admin = await createUser({ username: "healthadmin", password: "health-admin-pw", role: "admin" });
  adminToken = (await createPersonalToken(admin.id, "health")).token;
  GET = (await import("@/app/api/health/route")).GET;
});

describe("/api/health", () => {
  it("tells anonymous callers it is up, without the server's hostname or process id", async () => {
    const response = await GET(new Request("http://gpudesk.test/api/health"));
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ ok: true, cluster: { mode: "single", leader: true } });
    expect(text).not.toContain(os.hostname());
    expect(text).not.toContain(String(process.pid));
  });

  it("answers a caller with a revoked or bad token as anonymous, not with an error", async () => {
    const response = await GET(new Request("http://gpudesk.test/api/health", { headers: { authorization: "Bearer nope" } }));
    expect(response.status).toBe(200);
    expect(await response.text()).not.toContain(os.hostname());
  });

  it("shows admins which instance answers", async () => {
    const response = await GET(new Request("http://gpudesk.test/api/health", { headers: { authorization: `Bearer ${adminToken}` } }));
    expect((await response.json()).cluster.instance).toBe(instance);
  });
});
