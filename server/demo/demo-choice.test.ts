import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/server/access/actor";
import { makeGpu } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Demo or lab, against a real database: "the lab" ends everything of the
 * demo (its people, bookings and alerts, audited) and nothing of the real
 * lab's, once and for good.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let fx: Fixtures;
let db: typeof import("@/server/core/db").db;
let demoChoice: typeof import("@/server/demo/demo-choice");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let ensureDemoAccounts: typeof import("@/server/demo/demo-story").ensureDemoAccounts;

const NOW = new Date("2026-12-07T12:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  fx = await import("@/server/testing/booking-fixtures");
  ({ db } = await import("@/server/core/db"));
  demoChoice = await import("@/server/demo/demo-choice");
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ ensureDemoAccounts } = await import("@/server/demo/demo-story"));
}, 120_000);

async function realHost() {
  const { ensureLocalHost, recordHostInventory } = await import("@/server/hosts/host-registry");
  const name = `lab-node-${Date.now().toString(36)}`;
  const host = await ensureLocalHost(name, false);
  const gpus = [makeGpu({ index: 0 }), makeGpu({ index: 1, pciBusId: "00000000:18:00.0" })];
  await recordHostInventory(host.id, { name, driverVersion: "580.159.04", cudaVersion: "13.0" }, gpus, new Date());
  return { id: host.id, name, gpus };
}

describe("demo or lab", () => {
  it("the lab retires the demo people, ends the demo's bookings and alerts with an audit entry, and leaves the real lab as it was", async () => {
    const admin = await fx.createTestUser("admin", "firstadmin");
    const researcher = await fx.createTestUser("member", "researcher");
    const simHost = await fx.createTestHost(4, "sim-h100");
    const lab = await realHost();
    const people = await ensureDemoAccounts(["alice", "bob"]);
    const alice = people.get("alice")!;
    const demoActor: Actor = { id: alice.id, username: alice.username, name: alice.name, role: "member", unixLogin: "alice" };

    // A real host counts once its agent has reported: one registered and never heard from is not "reporting".
    await db().host.create({ data: { name: `lab-node-silent-${Date.now().toString(36)}`, tokenHash: `silent-${Date.now()}` } });
    expect(await demoChoice.getDemoStatus(admin)).toMatchObject({ choice: null, ask: true, realHosts: 1 });
    expect(await demoChoice.getDemoStatus(researcher)).toMatchObject({ ask: false });

    // The demo's: a running and a scheduled booking of a demo person, one of a real person on a simulated host, two alerts there.
    const running = await createBooking(demoActor, { host: simHost.name, gpus: [0], durationMinutes: 120, purpose: "demo training" }, { now: at(-30) });
    const later = await createBooking(demoActor, { host: simHost.name, gpus: [1], startsAt: at(60).toISOString(), durationMinutes: 60, purpose: "demo later" }, { now: NOW });
    const triedDemo = await createBooking(researcher, { host: simHost.name, gpus: [2], durationMinutes: 60, purpose: "trying the demo" }, { now: NOW });
    await db().alert.create({ data: { kind: "conflict", subjectKey: `conflict:${simHost.gpus[0]!.uuid}`, hostId: simHost.id, gpuUuid: simHost.gpus[0]!.uuid, message: "demo conflict" } });
    await db().alert.create({ data: { kind: "unbooked_use", subjectKey: `unbooked_use:${simHost.gpus[3]!.uuid}`, gpuUuid: simHost.gpus[3]!.uuid, message: "demo unbooked" } });
    // The real lab's: a booking and an open alert on the real host.
    const real = await createBooking(researcher, { host: lab.name, gpus: [0], durationMinutes: 180, purpose: "real work" }, { now: at(-10) });
    await db().alert.create({ data: { kind: "host_offline", subjectKey: `host_offline:${lab.id}`, hostId: lab.id, message: "real host silent" } });

    const { ended } = await demoChoice.chooseDemoOrLab(admin, "lab", NOW);
    expect(ended).toEqual({ retired: ["alice", "bob"], bookingsEnded: 2, bookingsCancelled: 1, alertsClosed: 2, simulatedHosts: 1 });

    const retired = await db().user.findMany({ where: { simulated: true }, select: { username: true, banned: true, unixLogin: true } });
    expect(retired.map((person) => [person.username, person.banned, person.unixLogin]).sort()).toEqual([
      ["alice", true, null],
      ["bob", true, null],
    ]);
    const bookings = await db().reservation.findMany({
      where: { id: { in: [running.id, later.id, triedDemo.id, real.id] } },
      select: { id: true, status: true, endsAt: true, cancelReason: true },
    });
    const byId = new Map(bookings.map((row) => [row.id, row]));
    expect(byId.get(running.id)).toMatchObject({ status: "cancelled", endsAt: NOW, cancelReason: expect.stringContaining("demo ended") });
    expect(byId.get(later.id)).toMatchObject({ status: "cancelled", endsAt: at(60) });
    expect(byId.get(triedDemo.id)).toMatchObject({ status: "cancelled", endsAt: NOW });
    expect(byId.get(real.id)).toMatchObject({ status: "booked", endsAt: new Date(real.endsAt), cancelReason: null });
    const open = await db().alert.findMany({ where: { closedAt: null }, select: { message: true } });
    expect(open.map((alert) => alert.message)).toEqual(["real host silent"]);
    expect(await db().auditLog.count({ where: { action: "reservation.cancel", entityId: { in: [running.id, later.id, triedDemo.id] }, actorId: admin.id } })).toBe(3);
    const entry = await db().auditLog.findFirstOrThrow({ where: { action: "policy.demo_choice" }, select: { actorId: true, after: true } });
    expect(entry.actorId).toBe(admin.id);
    expect(JSON.parse(entry.after!)).toMatchObject({ demoChoice: "lab", retired: ["alice", "bob"], alertsClosed: 2 });

    // Stored: asked no more, the demo cannot come back, and a second "lab" is refused with a clear error.
    expect(await demoChoice.demoEnded()).toBe(true);
    expect(await demoChoice.getDemoStatus(admin)).toMatchObject({ choice: "lab", ask: false, simulatedHosts: 0 });
    expect((await fx.refusal(demoChoice.chooseDemoOrLab(admin, "lab"))).message).toBe("The demo has already ended on this server");
    expect((await fx.refusal(demoChoice.chooseDemoOrLab(null, "demo"))).code).toBe("conflict");
  });

  it("the retired logins own no process: the user directory no longer knows them", async () => {
    const { UserDirectory } = await import("@/server/attribution/user-directory");
    const directory = new UserDirectory(60_000);
    await directory.refresh();
    expect(directory.byLogin("alice")).toBeNull();
    expect(directory.byLogin("bob")).toBeNull();
  });

  it("the simulated hosts are no longer expected to report (no host-offline alert for them after the demo)", async () => {
    const { ExpectedInventory } = await import("@/server/alerts/expected-inventory");
    await db().host.updateMany({ data: { lastSeenAt: NOW } });
    const inventory = new ExpectedInventory();
    await inventory.load(NOW.getTime());
    const expectedHosts = await db().host.findMany({ where: { id: { in: [...inventory.expectedGpus().keys()] } }, select: { simulated: true } });
    expect(expectedHosts.length).toBeGreaterThan(0);
    expect(expectedHosts.every((host) => !host.simulated)).toBe(true);
  });

  it("only an admin chooses", async () => {
    const member = await fx.createTestUser("member", "curious");
    expect((await fx.refusal(demoChoice.chooseDemoOrLab(member, "lab"))).code).toBe("forbidden");
  });
});
