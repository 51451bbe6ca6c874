import { beforeAll, describe, expect, it } from "vitest";
import type { ProcessInfo } from "@/lib/domain/snapshot";
import { FleetState } from "@/server/fleet/fleet-state";
import { makeProcess, makeSnapshot } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Booking GPUs on which something runs now, and the fleet API's view of
 * bookings, through the route handlers with real tokens, a real database
 * and the live fleet fed by agent snapshots. Who a process belongs to is
 * the server's own attribution (login → person), as in the running server.
 */

type Context = { params: Promise<Record<string, string>> };
type Handler = (request: Request, context: Context) => Promise<Response>;

const ORIGIN = "http://gpudesk.test";
let fleet: FleetState;
let tokens: { alice: string; bob: string; admin: string };
let routes: {
  collection: typeof import("@/app/api/v1/reservations/route");
  fleet: typeof import("@/app/api/v1/fleet/route");
  audit: typeof import("@/app/api/v1/audit/route");
};

beforeAll(async () => {
  await useTestDatabase();
  const { setRuntime } = await import("@/server/runtime/runtime");
  fleet = new FleetState({ offlineAfterMs: 60_000, simulated: false });
  // What the server's tick answers: the reconciler's view of whose process is whose.
  const { reconcileFleet } = await import("@/server/attribution/reconcile-fleet");
  const { UserDirectory } = await import("@/server/attribution/user-directory");
  const { listLiveBookings } = await import("@/server/bookings/views/bookings-query");
  const directory = new UserDirectory();
  let bookings: Awaited<ReturnType<typeof listLiveBookings>> = [];
  setRuntime({
    fleet,
    ingest: {} as never,
    disconnectAgents: () => {},
    tick: {
      gpuStates: () => reconcileFleet(fleet.current(), bookings, directory, Date.now()),
      agentAllowsEnforcement: () => false,
      enforcementSettingsChanged: () => {},
    },
  });

  const { createUser } = await import("@/server/auth/users");
  const { createPersonalToken } = await import("@/server/auth/tokens");
  const [alice, bob, admin] = await Promise.all([
    createUser({ username: "alice", name: "Alice Smith", password: "alice-password" }),
    createUser({ username: "bob", name: "Bob Member", password: "bob-password" }),
    createUser({ username: "root", password: "root-password", role: "admin" }),
  ]);
  await directory.refresh();
  bookings = await listLiveBookings(new Date());
  tokens = {
    alice: (await createPersonalToken(alice.id, "test")).token,
    bob: (await createPersonalToken(bob.id, "test")).token,
    admin: (await createPersonalToken(admin.id, "test")).token,
  };
  routes = {
    collection: await import("@/app/api/v1/reservations/route"),
    fleet: await import("@/app/api/v1/fleet/route"),
    audit: await import("@/app/api/v1/audit/route"),
  };
}, 60_000);

async function call(handler: unknown, init: { method: string; token: string; body?: unknown; query?: string }) {
  const request = new Request(`${ORIGIN}/api/v1/x${init.query ?? ""}`, {
    method: init.method,
    headers: { "content-type": "application/json", authorization: `Bearer ${init.token}` },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const response = await (handler as Handler)(request, { params: Promise.resolve({}) });
  return { status: response.status, body: await response.json() };
}

/** A host of 4 GPUs reporting now, with these processes (by GPU index). */
async function hostRunning(processes: Record<number, Partial<ProcessInfo>[]>) {
  const { createTestHost } = await import("@/server/testing/booking-fixtures");
  const host = await createTestHost(4, "busy");
  fleet.connectHost(host.id, host.name, false);
  const running = Object.entries(processes).flatMap(([index, list]) => list.map((overrides) => makeProcess(host.gpus[Number(index)], overrides)));
  fleet.ingest(host.id, makeSnapshot(host.gpus, Date.now(), { host: { name: host.name, driverVersion: "580", cudaVersion: "13.0" }, processes: running }));
  return host;
}

const book = (token: string, body: Record<string, unknown>) => call(routes.collection.POST, { method: "POST", token, body: { durationMinutes: 60, purpose: "test", ...body } });

describe("booking GPUs on which something runs now", () => {
  it("refuses with gpu_in_use, naming the GPU, the owner and the command, and books with allowBusy (audited)", async () => {
    const host = await hostRunning({ 1: [{ pid: 5001, user: "bob", command: "python train.py --epochs 90" }] });

    const refused = await book(tokens.alice, { host: host.name, gpus: [0, 1] });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: "gpu_in_use",
      busyGpus: [
        {
          hostName: host.name,
          gpuIndex: 1,
          processes: [{ pid: 5001, owner: { username: "bob", name: "Bob Member" }, ownerName: "Bob Member", command: "python train.py --epochs 90" }],
        },
      ],
    });
    expect(refused.body.error.message).toContain(`GPU 1 on ${host.name} runs Bob Member: python train.py --epochs 90`);

    const anyway = await book(tokens.alice, { host: host.name, gpus: [0, 1], allowBusy: true });
    expect(anyway.status).toBe(201);
    const audit = await call(routes.audit.GET, { method: "GET", token: tokens.admin, query: `?limit=5&entityType=reservation&entityId=${anyway.body.id}` });
    expect(audit.body.entries[0].after.bookedOverRunningWork).toEqual([
      { index: 1, uuid: host.gpus[1].uuid, unit: "GPU 1", processes: [{ pid: 5001, owner: "bob", login: "bob", command: "python train.py --epochs 90" }] },
    ]);
  });

  it("lets a person claim the GPU their own unbooked job runs on, and says so in the fleet", async () => {
    const host = await hostRunning({ 2: [{ pid: 6001, user: "alice", command: "python sweep.py" }] });
    const claimed = await book(tokens.alice, { host: host.name, gpus: [2] });
    expect(claimed.status).toBe(201);

    const { body } = await call(routes.fleet.GET, { method: "GET", token: tokens.bob });
    const uuid = host.gpus[2].uuid;
    expect(body.gpuStates[uuid]).toMatchObject({ state: "booked_in_use", bookedBy: { username: "alice" } });
    expect(body.gpuBookings[uuid]).toMatchObject({
      reservationId: claimed.body.id,
      bookedBy: { username: "alice", name: "Alice Smith" },
      bookedByName: "Alice Smith",
      until: claimed.body.endsAt,
      purpose: "test",
    });
  });

  it("says a host that stopped reporting is offline, not that its last-seen processes still run", async () => {
    const host = await hostRunning({ 1: [{ pid: 691, user: "bob", command: "python train.py" }] });
    fleet.disconnectHost(host.id);

    const refused = await book(tokens.alice, { host: host.name, gpus: [1] });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("conflict");
    expect(refused.body.error.message).toContain(`${host.name} is offline`);
    expect(refused.body.error.message).not.toMatch(/pid 691|Bob Member|someone else's work/i);
    // Neither with "book anyway": nothing can be checked there now.
    expect((await book(tokens.alice, { host: host.name, gpus: [1], allowBusy: true })).body.error.code).toBe("conflict");
    // A booking for later is the calendar's business, as for any host.
    expect((await book(tokens.alice, { host: host.name, gpus: [1], startsAt: new Date(Date.now() + 3 * 3600_000).toISOString() })).status).toBe(201);
  });

  it("does not stop a booking that starts later, nor anyone booking a GPU only they run on", async () => {
    const host = await hostRunning({ 3: [{ pid: 7001, user: "bob" }] });
    const later = await book(tokens.alice, { host: host.name, gpus: [3], startsAt: new Date(Date.now() + 2 * 3600_000).toISOString() });
    expect(later.status).toBe(201);
    expect((await book(tokens.bob, { host: host.name, gpus: [3] })).status).toBe(201);
  });

  it("never suggests a GPU with processes as free, and any-N picks only free GPUs", async () => {
    const host = await hostRunning({ 1: [{ pid: 8001, user: "bob" }], 2: [{ pid: 8002, user: "alice" }] });
    expect((await book(tokens.bob, { host: host.name, gpus: [0] })).status).toBe(201);
    const clash = await book(tokens.alice, { host: host.name, gpus: [0] });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toMatchObject({ code: "conflict", suggestion: { freeGpuIndices: [3] } });

    // Alice's own job on GPU 2 does not make it free for "any": only GPU 3 is.
    const any = await book(tokens.alice, { host: host.name, count: 1 });
    expect(any.body.gpus.map((gpu: { index: number }) => gpu.index)).toEqual([3]);
    const none = await book(tokens.alice, { host: host.name, count: 1 });
    expect(none.status).toBe(409);
    expect(none.body.error.message).toMatch(/in use by (bob|alice) without a booking/);
  });

  it("treats a GPU holding memory with no process listed as someone else's work: refused, never picked, not free in the fleet", async () => {
    // Its job runs in another PID namespace: nvidia-smi lists nothing, the memory and load are real.
    const host = await hostRunning({});
    const held = host.gpus.map((gpu, index) => (index === 1 ? { ...gpu, memoryUsedMiB: 40_960, utilizationGpuPct: 87 } : gpu));
    fleet.ingest(host.id, makeSnapshot(held, Date.now(), { host: { name: host.name, driverVersion: "580", cudaVersion: "13.0" } }));

    const refused = await book(tokens.alice, { host: host.name, gpus: [1] });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "gpu_in_use", busyGpus: [{ gpuIndex: 1, processes: [], unseenMemoryMiB: 40_960 }] });
    expect(refused.body.error.message).toContain(`GPU 1 on ${host.name} is in use with no process visible (40 GiB held)`);

    const { body } = await call(routes.fleet.GET, { method: "GET", token: tokens.bob });
    expect(body.gpuStates[host.gpus[1].uuid]).toMatchObject({ state: "unbooked_use", processes: [], unseenUse: { memoryMiB: 40_960 } });
    expect(body.availability.hosts[host.name]).toMatchObject({ total: 4, free: 3, byState: { unbooked_use: 1 } });

    const any = await book(tokens.alice, { host: host.name, count: 3 });
    expect(any.body.gpus.map((gpu: { index: number }) => gpu.index).sort()).toEqual([0, 2, 3]);
    const none = await book(tokens.bob, { host: host.name, count: 1 });
    expect(none.status).toBe(409);
    expect(none.body.error.message).toContain(`GPU 1 on ${host.name} is in use without a booking, no process visible (40 GiB held)`);
  });

  it("refuses allowBusy without specific GPUs", async () => {
    const bad = await book(tokens.alice, { count: 1, allowBusy: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields).toHaveProperty("allowBusy");
  });
});

describe("GET /api/v1/fleet", () => {
  it("carries every booked GPU's booking, the state of each GPU by the one rule and the counts", async () => {
    const host = await hostRunning({ 1: [{ pid: 9001, user: "bob" }] });
    const held = await book(tokens.bob, { host: host.name, gpus: [1] });
    expect(held.status).toBe(201);
    const { status, body } = await call(routes.fleet.GET, { method: "GET", token: tokens.alice });
    expect(status).toBe(200);
    const [gpu0, gpu1] = host.gpus;
    expect(body.gpuStates[gpu0.uuid].state).toBe("free");
    expect(body.gpuStates[gpu1.uuid].state).toBe("booked_in_use");
    expect(body.gpuBookings[gpu0.uuid]).toBeUndefined();
    expect(body.gpuBookings[gpu1.uuid]).toEqual({
      reservationId: held.body.id,
      bookedBy: { id: expect.any(String), username: "bob", name: "Bob Member" },
      bookedByName: "Bob Member",
      // The names of before 0.4 beside the new ones, deprecated (docs/api.md).
      holder: { id: expect.any(String), username: "bob", name: "Bob Member" }, // deprecated
      holderName: "Bob Member", // deprecated
      startsAt: held.body.startsAt,
      until: held.body.endsAt,
      purpose: "test",
    });
    expect(body.bookings.map((booking: { reservationId: string }) => booking.reservationId)).toContain(held.body.id);
    expect(body.availability.hosts[host.name]).toMatchObject({ total: 4, free: 3, byState: { booked_in_use: 1 } });
    const states = Object.values(body.gpuStates as Record<string, { state: string }>);
    expect(body.availability.fleet.free).toBe(states.filter((entry) => entry.state === "free").length);
  });
});
