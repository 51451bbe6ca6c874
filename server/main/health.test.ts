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

  it("shows Slurm's state to anyone (up/down/refused, version, last pass, node counts) and its address, reason and node names to admins", async () => {
    const { SlurmConnection, setSlurmConnection } = await import("@/server/slurm/slurm-connection");
    const { SlurmError, SlurmUnreachable } = await import("@/server/slurm/slurm-client");
    const health = async (headers: Record<string, string> = {}) => (await (await GET(new Request("http://gpudesk.test/api/health", { headers }))).json()).slurm;
    expect(await health()).toBeNull();
    // Nothing is asked of this address: the state is set as the connection's passes would set it.
    const connection = new SlurmConnection({ url: "http://slurm-ctl.test:6820", user: "gpudesk", token: "unused" });
    const internal = connection as unknown as { current: { state: string; message: string | null; version: unknown; nodes: string[]; checkedAt: string | null } };
    internal.current = { ...internal.current, state: "up", message: null, version: { release: "26.05.5", major: 26, minor: 5, api: "v0.0.45" }, nodes: ["slurm-a", "slurm-b", "slurm-c"], checkedAt: "2026-12-07T18:00:00.000Z" };
    connection.refreshedAt = Date.parse("2026-12-07T18:00:00Z");
    connection.hostsOnNodes = [{ node: "slurm-a", host: "dgx-a" }, { node: "slurm-b", host: "slurm-b" }];
    connection.calendar = { ...connection.calendar, unplanned: { jobs: 2, gpus: 7 } };
    setSlurmConnection(connection);
    try {
      const seen = { state: "up", version: "26.05.5", api: "v0.0.45", lastPass: "2026-12-07T18:00:00.000Z", nodes: { mapped: 2, unmapped: 1 }, unplanned: { jobs: 2, gpus: 7 } };
      expect(await health()).toEqual(seen);
      expect(await health({ authorization: `Bearer ${adminToken}` })).toEqual({
        ...seen,
        url: "http://slurm-ctl.test:6820",
        message: null,
        nodeNames: { mapped: [{ node: "slurm-a", host: "dgx-a" }, { node: "slurm-b", host: "slurm-b" }], unmapped: ["slurm-c"] },
      });
      connection.markDown(new SlurmUnreachable("Slurm (slurmrestd at http://slurm-ctl.test:6820) cannot be reached: ECONNREFUSED"));
      expect(await health()).toMatchObject({ state: "down" });
      expect(JSON.stringify(await health())).not.toContain("slurm-ctl.test");
      expect(await health({ authorization: `Bearer ${adminToken}` })).toMatchObject({ state: "down", message: expect.stringContaining("ECONNREFUSED") });
      connection.markDown(new SlurmError(401, [], "Slurm refused gpudesk's credentials (gpudesk): Authentication failure"));
      expect(await health({ authorization: `Bearer ${adminToken}` })).toMatchObject({ state: "refused", message: expect.stringContaining("credentials") });
      // Slurm's refusal of one reservation is no state of the cluster.
      connection.markDown(new SlurmError(422, [{ error_number: 2016 }], "Requested nodes are busy (2016)"));
      expect(await health()).toMatchObject({ state: "refused" });
    } finally {
      setSlurmConnection(null);
    }
  });
});
