import { beforeAll, describe, expect, it } from "vitest";
import type { GpuState } from "@/lib/domain/attribution";
import { unitRef } from "@/lib/domain/gpu-availability";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The simulated demo fleet tells its story: with its demo accounts and
 * bookings, every GPU state shows at once (at the instant e2e pins the
 * simulation to: jobs come and go over the simulated day).
 */

const SEED = 42;

beforeAll(async () => {
  await useTestDatabase();
}, 120_000);

/** Registers the demo hosts as the embedded agents would, and answers each GPU's state by the server's reconciliation. */
async function demoStates(simTime: string, now: Date) {
  const { simulatedFleet, simulatedSnapshotAt } = await import("@/host/collector/simulated/simulated-source");
  const { ensureLocalHost, recordHostInventory } = await import("@/server/hosts/host-registry");
  const { startDemoStory } = await import("@/server/demo/demo-story");
  const { FleetState } = await import("@/server/fleet/fleet-state");
  const { reconcileFleet } = await import("@/server/attribution/reconcile-fleet");
  const { UserDirectory } = await import("@/server/attribution/user-directory");
  const { listLiveBookings } = await import("@/server/bookings/views/bookings-query");

  const specs = simulatedFleet({ seed: SEED });
  const fleet = new FleetState({ offlineAfterMs: 60_000, simulated: true, now: () => now.getTime() });
  for (const spec of specs) {
    const snapshot = { ...simulatedSnapshotAt(spec, SEED, Date.parse(simTime)), sampledAt: now.toISOString() };
    const host = await ensureLocalHost(spec.hostName, true);
    await recordHostInventory(host.id, snapshot.host, snapshot.gpus, now);
    fleet.connectHost(host.id, host.name, true);
    fleet.ingest(host.id, snapshot);
  }
  await startDemoStory(specs, SEED, simTime, now);
  const directory = new UserDirectory();
  await directory.refresh();
  const states = reconcileFleet(fleet.current(), await listLiveBookings(now), directory, now.getTime());
  const byName = new Map<string, GpuState>();
  // "sim-h100-a/2" for a GPU, "sim-h100-mig/0:1" for a MIG slice.
  for (const gpu of fleet.current().gpus) byName.set(`${gpu.hostName}/${unitRef(gpu)}`, states[gpu.uuid].state);
  return byName;
}

describe("the demo story", () => {
  it("shows every state at once, with two free idle GPUs on one host, and books for demo accounts that cannot sign in", async () => {
    const now = new Date();
    const states = await demoStates("2026-11-30T00:00:00Z", now);
    const present = new Set(states.values());
    for (const state of ["free", "booked_in_use", "booked_idle", "unbooked_use", "conflict"] as const) expect(present, state).toContain(state);
    expect([states.get("sim-4090-a/1"), states.get("sim-4090-a/2")]).toEqual(["free", "free"]);
    expect(states.get("sim-4090-a/3")).toBe("booked_idle");
    expect(states.get("sim-h100-a/2")).toBe("conflict");
    expect(states.get("sim-h100-a/0")).toBe("booked_in_use");
    // The split H100: a slice in each state.
    expect(["0:0", "0:1", "0:2", "0:3"].map((ref) => states.get(`sim-h100-mig/${ref}`))).toEqual(["booked_in_use", "booked_idle", "unbooked_use", "free"]);

    const { db } = await import("@/server/core/db");
    const demo = await db().user.findMany({ where: { simulated: true }, select: { id: true, username: true, unixLogin: true } });
    expect(demo.map((user) => user.username).sort()).toEqual(["alice", "bob", "carol", "dave", "erin", "frank"]);
    expect(demo.every((user) => user.unixLogin === user.username)).toBe(true);
    // No credential account: nobody can sign in as a demo person, and the sign-in page still counts no users.
    expect(await db().account.count({ where: { userId: { in: demo.map((user) => user.id) } } })).toBe(0);
    const { countUsers } = await import("@/server/auth/users");
    expect(await countUsers()).toBe(0);
    const bookings = await db().reservation.findMany({ where: { status: "booked" }, select: { user: { select: { simulated: true } } } });
    expect(bookings.length).toBe(5);
    expect(bookings.every((booking) => booking.user.simulated)).toBe(true);

    // A restart neither duplicates the accounts nor books again.
    await demoStates("2026-11-30T00:00:00Z", now);
    expect(await db().user.count({ where: { simulated: true } })).toBe(6);
    expect(await db().reservation.count({ where: { status: "booked" } })).toBe(5);
  });

  it("stages the idle booking's past minutes as that booking's: held and run by its person, never use without a booking by nobody named", async () => {
    const now = new Date();
    await demoStates("2026-11-30T00:00:00Z", now);
    const { db } = await import("@/server/core/db");
    const { DEMO_IDLE_PURPOSE } = await import("@/server/demo/demo-idle");
    const { unbookedUseByPerson } = await import("@/server/history/unbooked-use");
    const held = await db().reservation.findFirstOrThrow({ where: { purpose: DEMO_IDLE_PURPOSE, status: "booked" }, select: { userId: true, startsAt: true, gpus: { select: { gpu: { select: { uuid: true } } } } } });
    const { readMinutes } = await import("@/server/minutes/minute-store");
    const staged = await readMinutes(db(), held.startsAt.getTime(), now.getTime(), held.gpus.map(({ gpu }) => gpu.uuid));
    expect(staged.length).toBeGreaterThan(30);
    expect(new Set(staged.map((minute) => `${minute.bookedByUserId}/${minute.runnerUserId}`))).toEqual(new Set([`${held.userId}/${held.userId}`]));
    // The usage page's "use without a booking" has nothing unnamed to show from the staging.
    const unbooked = await unbookedUseByPerson({ fromMs: now.getTime() - 3 * 3600_000, toMs: now.getTime(), nowMs: now.getTime(), minuteRetentionMs: 30 * 24 * 3600_000 });
    expect(unbooked.filter((row) => row.userId === null)).toEqual([]);
    // Its hours are recomputed with it: the 7-day view counts the idle booking.
    const hours = await db().gpuHour.findMany({ where: { gpuUuid: held.gpus[0]!.gpu.uuid, hour: { gte: new Date(held.startsAt.getTime() - 3600_000) } }, select: { bookedByUserId: true } });
    expect(hours.some((hour) => hour.bookedByUserId === held.userId)).toBe(true);
  });

  it("shows idle release at start on a whole GPU and on the booked empty MIG slice: both in their warning period", async () => {
    const now = new Date();
    await demoStates("2026-11-30T00:00:00Z", now);
    const { db } = await import("@/server/core/db");
    const { DEMO_IDLE_PURPOSE, DEMO_IDLE_SLICE_PURPOSE } = await import("@/server/demo/demo-idle");
    const { idleWarningsOf } = await import("@/server/bookings/views/idle-views");
    const rows = await db().reservation.findMany({ where: { purpose: { in: [DEMO_IDLE_PURPOSE, DEMO_IDLE_SLICE_PURPOSE] }, status: "booked" }, select: { id: true, purpose: true } });
    expect(rows.map((row) => row.purpose).sort()).toEqual([DEMO_IDLE_PURPOSE, DEMO_IDLE_SLICE_PURPOSE].sort());
    // What the fleet cards show: the warning and the coming release, for both.
    const warnings = await idleWarningsOf(db(), rows.map((row) => row.id), now.getTime());
    for (const row of rows) expect(warnings.get(row.id), row.purpose).toMatchObject({ releaseAt: expect.any(String) });
  });

  it("plans the two slice bookings on the split H100: its job's owner on the 3g.40gb, another person on the idle 2g.20gb", async () => {
    const { simulatedFleet, simulatedSnapshotAt } = await import("@/host/collector/simulated/simulated-source");
    const { planDemoBookings } = await import("@/server/demo/demo-story");
    const specs = simulatedFleet({ seed: SEED });
    const simMs = Date.parse("2026-11-30T00:00:00Z");
    const plan = planDemoBookings(specs, SEED, simMs);
    const slices = plan.filter((booking) => booking.host === "sim-h100-mig");
    expect(slices.map((booking) => booking.slices)).toEqual([["0:0"], ["0:1"]]);
    expect(slices.every((booking) => booking.gpus === undefined)).toBe(true);
    const snapshot = simulatedSnapshotAt(specs.find((spec) => spec.hostName === "sim-h100-mig")!, SEED, simMs);
    const onBig = snapshot.processes.filter((process) => process.gpuUuid === snapshot.gpus[1]!.uuid);
    expect(slices[0]!.login).toBe(onBig[0]!.user);
    expect(slices[1]!.login).not.toBe(slices[0]!.login);
    // Nobody's booking sits over the service on 0:2, or on 0:3.
    expect(plan.flatMap((booking) => booking.slices ?? [])).toEqual(["0:0", "0:1"]);
    // Without the split host (an older fleet), the other bookings stay as they were.
    expect(planDemoBookings(specs.slice(0, 3), SEED, simMs)).toEqual(plan.filter((booking) => booking.host !== "sim-h100-mig"));
  });

  it("leaves a login that belongs to a person with that person", async () => {
    const { ensureDemoAccounts } = await import("@/server/demo/demo-story");
    const { db } = await import("@/server/core/db");
    await db().user.create({ data: { id: "real-zed", name: "Zed Real", email: "zed@example.test", username: "zed", unixLogin: "zedlogin" } });
    const accounts = await ensureDemoAccounts(["zedlogin", "zed"]);
    // Not in the map: the demo never books in a real person's name.
    expect(accounts.get("zedlogin")).toBeUndefined();
    // The username "zed" is taken by the person: the demo account for login "zed" gets another.
    expect(accounts.get("zed")).toMatchObject({ username: "zed-sim" });
  });
});
