import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/server/access/actor";
import { uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Every waiting request says why it waits (issue 38): a member queued for
 * 2 GPUs while 3 were free and the team's 3-GPUs-at-once limit held it
 * back; the queue said "1st, estimated start ~now" and nothing happened.
 * The reason and an estimate that is never "now" while something blocks
 * come from one function; raising the limit grants the request at once.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
let listWaitlist: typeof import("@/server/waitlist/list-waitlist").listWaitlist;
let grantWaiting: typeof import("@/server/waitlist/grant-waiting").grantWaiting;
let teams: typeof import("@/server/teams/team-service");
let db: typeof import("@/server/core/db").db;
let fx: Fixtures;
let admin: Actor;

const NOW = new Date("2026-11-30T10:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000).toISOString();

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ joinWaitlist } = await import("@/server/waitlist/join-waitlist"));
  ({ listWaitlist } = await import("@/server/waitlist/list-waitlist"));
  ({ grantWaiting } = await import("@/server/waitlist/grant-waiting"));
  teams = await import("@/server/teams/team-service");
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
  admin = await fx.createTestUser("admin");
}, 120_000);

/** Only this test's requests: the database is shared by the file's tests. */
async function leaveAll() {
  await db().waitlistEntry.updateMany({ where: { status: "waiting" }, data: { status: "left" } });
}

async function viewOf(id: string) {
  const view = (await listWaitlist(NOW)).find((entry) => entry.id === id);
  if (!view) throw new Error(`request ${id} is not in the queue`);
  return view;
}

describe("why a request waits", () => {
  it("names the team's GPUs-at-once limit with its figures and when room frees up, and a raised limit grants it", async () => {
    await leaveAll();
    const host = await fx.createTestHost(5);
    const [ana, ben] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const team = await teams.createTeam(admin, { name: uniqueName("vision"), limits: { maxGpus: 3 } });
    for (const person of [ana, ben]) await teams.addTeamMember(admin, team.id, { username: person.username });
    const held = await createBooking(ana, { host: host.name, gpus: [0, 1], startsAt: at(0), durationMinutes: 90, purpose: "train" }, { now: NOW });

    const entry = await joinWaitlist(ben, { count: 2, host: host.name, durationMinutes: 60, purpose: "queued" }, { now: NOW });
    expect(await grantWaiting({ now: NOW })).toEqual([]);
    const view = await viewOf(entry.id);
    expect(view.waitingBecause).toMatchObject({ kind: "limit", limit: "maxGpus", scope: "team", subject: team.name, used: 2, max: 3, requested: 2, freesAt: held.endsAt });
    expect(view.waitingBecause?.message).toContain(`${team.name}`);
    expect(view.waitingBecause?.message).toContain("2 of 3 GPUs at once");
    // Never "now" while the limit blocks: the estimate is when enough frees up.
    expect(view.estimatedStartAt).toBe(held.endsAt);

    await teams.updateTeam(admin, team.id, { limits: { maxGpus: 4 } });
    const grants = await grantWaiting({ now: NOW });
    expect(grants.map((grant) => grant.entryId)).toEqual([entry.id]);
  });

  it("names who holds the GPUs and until when", async () => {
    await leaveAll();
    const host = await fx.createTestHost(1);
    const [carl, dora] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const held = await createBooking(carl, { host: host.name, gpus: [0], startsAt: at(0), durationMinutes: 45, purpose: "eval" }, { now: NOW });
    const entry = await joinWaitlist(dora, { count: 1, host: host.name, durationMinutes: 30, purpose: "queued" }, { now: NOW });
    const view = await viewOf(entry.id);
    expect(view.waitingBecause).toMatchObject({ kind: "held", bookers: [{ person: carl.name, hostName: host.name, gpuIndex: 0, until: held.endsAt }] });
    expect(view.waitingBecause?.message).toContain(`${carl.name} holds ${host.name} GPU 0 until 2026-11-30 10:45 UTC`);
    expect(view.estimatedStartAt).toBe(held.endsAt);
  });

  it("with a host its team's rule holds out: waits for the allowed host only, estimates from it, and says which hosts are held out", async () => {
    await leaveAll();
    const [allowed, other] = await Promise.all([fx.createTestHost(2, "allowed"), fx.createTestHost(2, "other")]);
    const [bookedBy, hana] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const team = await teams.createTeam(admin, { name: uniqueName("one-host"), limits: { hosts: [{ host: allowed.name }] } });
    await teams.addTeamMember(admin, team.id, { username: hana.username });
    const held = await createBooking(bookedBy, { host: allowed.name, gpus: [0], startsAt: at(0), durationMinutes: 60, purpose: "eval" }, { now: NOW });
    // Any host: the other host's two GPUs are free, but her team may not book it.
    const entry = await joinWaitlist(hana, { count: 2, durationMinutes: 30, purpose: "queued" }, { now: NOW });
    expect(await grantWaiting({ now: NOW })).toEqual([]);
    const view = await viewOf(entry.id);
    // It said "estimated start ~now" from the free host it can never take.
    expect(view.estimatedStartAt).toBe(held.endsAt);
    expect(view.waitingBecause).toMatchObject({ kind: "held", bookers: [{ person: bookedBy.name, hostName: allowed.name, gpuIndex: 0 }] });
    // The hosts of the file's other tests are held out too: the rule allows one host.
    expect(view.waitingBecause?.heldOut).toContainEqual({ host: other.name, why: `${team.name} may not book ${other.name} (hosts allowed: ${allowed.name})` });
    expect(view.waitingBecause?.message).toMatch(new RegExp(`; held out: .*${other.name}.* — ${team.name} may not book `));

    // A later request for the host her rule holds out is served: she does not compete for it (her request held the whole queue back).
    const ivo = await fx.createTestUser();
    const later = await joinWaitlist(ivo, { count: 1, host: other.name, durationMinutes: 30, purpose: "after her" }, { now: new Date(NOW.getTime() + 1000) });
    const granted = await grantWaiting({ now: new Date(NOW.getTime() + 2000) });
    expect(granted.map((grant) => [grant.entryId, grant.hostName])).toEqual([[later.id, other.name]]);
    expect((await viewOf(entry.id)).status).toBe("waiting");
  });

  it("counts only GPUs a grant can take: a GPU split into slices is no room for a request of whole GPUs", async () => {
    await leaveAll();
    const factories = await import("@/server/testing/factories");
    const { ensureLocalHost, recordHostInventory } = await import("@/server/hosts/host-registry");
    const name = uniqueName("split");
    const host = await ensureLocalHost(name, true);
    const parent = factories.makeGpu({ index: 0, migMode: "Enabled", utilizationGpuPct: null });
    const slice = factories.makeGpu({ index: 0, uuid: `MIG-${factories.gpuUuid().slice(4)}`, utilizationGpuPct: null, migMode: "Enabled", mig: { parentUuid: parent.uuid, profile: "7g.80gb", gpuInstanceId: 0, computeInstanceId: 0, deviceIndex: 0 } });
    const whole = factories.makeGpu({ index: 1, pciBusId: "00000000:18:00.0" });
    await recordHostInventory(host.id, { name, driverVersion: null, cudaVersion: null }, [parent, slice, whole], NOW);
    const [ivy, jon] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const held = await createBooking(ivy, { host: name, gpus: [1], startsAt: at(0), durationMinutes: 50, purpose: "eval" }, { now: NOW });
    const entry = await joinWaitlist(jon, { count: 1, host: name, durationMinutes: 30, purpose: "queued" }, { now: NOW });
    expect(await grantWaiting({ now: NOW })).toEqual([]);
    const view = await viewOf(entry.id);
    // The split GPU 0 made it "now" while no grant could take it.
    expect(view.estimatedStartAt).toBe(held.endsAt);
    expect(view.waitingBecause).toMatchObject({ kind: "held", bookers: [{ person: ivy.name, hostName: name, gpuIndex: 1 }] });
  });

  it("names the request ahead in fair-share order", async () => {
    await leaveAll();
    const host = await fx.createTestHost(1);
    const [gus, eve, fay] = await Promise.all([fx.createTestUser(), fx.createTestUser(), fx.createTestUser()]);
    await createBooking(gus, { host: host.name, gpus: [0], startsAt: at(0), durationMinutes: 30, purpose: "eval" }, { now: NOW });
    const first = await joinWaitlist(eve, { count: 1, host: host.name, durationMinutes: 60, purpose: "first" }, { now: new Date(NOW.getTime() - 2000) });
    const second = await joinWaitlist(fay, { count: 1, host: host.name, durationMinutes: 60, purpose: "second" }, { now: new Date(NOW.getTime() - 1000) });
    const view = await viewOf(second.id);
    expect(view.waitingBecause).toMatchObject({ kind: "queue", ahead: { person: eve.name, position: (await viewOf(first.id)).position } });
    expect(view.waitingBecause?.message).toContain(`behind ${eve.name}`);
    expect(view.estimatedStartAt).toBe(at(90));
  });

  it("says no host fits and which rule excludes which host", async () => {
    await leaveAll();
    const [small, barred] = await Promise.all([fx.createTestHost(1, "small"), fx.createTestHost(4, "barred")]);
    const hal = await fx.createTestUser();
    const team = await teams.createTeam(admin, { name: uniqueName("nlp"), limits: { hosts: [{ host: small.name }] } });
    await teams.addTeamMember(admin, team.id, { username: hal.username });
    const entry = await joinWaitlist(hal, { count: 2, durationMinutes: 30, purpose: "any host" }, { now: NOW });
    const view = await viewOf(entry.id);
    expect(view.waitingBecause?.kind).toBe("no_host");
    const hosts = view.waitingBecause?.kind === "no_host" ? view.waitingBecause.hosts : [];
    expect(hosts).toContainEqual({ host: small.name, why: `${small.name} has 1 GPU` });
    expect(hosts.find((entry) => entry.host === barred.name)?.why).toContain(`${team.name} may not book ${barred.name}`);
    expect(view.estimatedStartAt).toBeNull();
  });
});
