import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/server/access/actor";
import { gpuHoursOf, HOUR_MS } from "@/server/bookings/rules/gpu-hours";
import { uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";
import { describeRank, rankByFairShare, type TeamStanding, WAIT_WORTH_MS } from "@/server/waitlist/fair-share";

const NOW = Date.parse("2026-12-01T10:00:00Z");

function standings(entries: [string, number, number?][]): Map<string | null, TeamStanding> {
  return new Map(entries.map(([name, used, share]) => [name, { name, usedGpuHours: used, share: share ?? 1 }]));
}

describe("fair-share order", () => {
  it("serves the team that used least of its share first; arrival order between equals", () => {
    const teams = standings([["vision", 130], ["nlp", 70]]);
    const ranked = rankByFairShare(
      [
        { id: "a", createdAtMs: NOW - 60_000, teamKey: "vision" },
        { id: "b", createdAtMs: NOW - 30_000, teamKey: "nlp" },
        { id: "c", createdAtMs: NOW - 20_000, teamKey: "nlp" },
      ],
      teams,
      NOW,
    );
    expect(ranked.map((entry) => entry.request.id)).toEqual(["b", "c", "a"]);
    expect(Math.round(ranked[2].usedPctOfShare ?? 0)).toBe(130);
    expect(describeRank(3, ranked[2])).toBe("3rd — vision used 130 % of its share this week");
  });

  it("a team's share weighs its use: twice the share, twice the hours at the same standing", () => {
    const ranked = rankByFairShare(
      [
        { id: "big", createdAtMs: NOW - 1000, teamKey: "big" },
        { id: "small", createdAtMs: NOW, teamKey: "small" },
      ],
      standings([["big", 200, 2], ["small", 100, 1]]),
      NOW,
    );
    expect(ranked.map((entry) => Math.round(entry.usedPctOfShare ?? 0))).toEqual([100, 100]);
    // Equal standing: the earlier request first.
    expect(ranked[0].request.id).toBe("big");
  });

  it("nothing starves: waiting long enough comes ahead of any newcomer", () => {
    const teams = standings([["busy", 990], ["idle", 10]]);
    const old = { id: "old", createdAtMs: NOW, teamKey: "busy" };
    const fresh = (at: number) => ({ id: `new-${at}`, createdAtMs: at, teamKey: "idle" });
    // At first the idle team's newcomers go first.
    expect(rankByFairShare([old, fresh(NOW + 1)], teams, NOW + 1)[0].request.id).toBe("new-" + (NOW + 1));
    // The busy team stands at ~198 %: after about two WAIT_WORTH_MS of waiting it beats a newcomer of a team at 0 %.
    const later = NOW + 2.1 * WAIT_WORTH_MS;
    const ranked = rankByFairShare([old, fresh(later)], standings([["busy", 990], ["idle", 0.0001]]), later);
    expect(ranked[0].request.id).toBe("old");
    expect(describeRank(1, ranked[0])).toMatch(/^1st — busy used 200 % of its share this week; waiting 8 h raised it$/);
  });

  it("with no use at all, arrival order", () => {
    const ranked = rankByFairShare(
      [
        { id: "second", createdAtMs: NOW - 10, teamKey: "x" },
        { id: "first", createdAtMs: NOW - 20, teamKey: null },
      ],
      new Map(),
      NOW,
    );
    expect(ranked.map((entry) => entry.request.id)).toEqual(["first", "second"]);
    expect(describeRank(1, ranked[0])).toBe("1st — in order of arrival (no team used GPUs lately)");
  });

  it("says a person in no team's figure without team words (issue 51: not \"no team used 152 % of its share\")", () => {
    const use = new Map<string | null, TeamStanding>([
      [null, { name: "no team", usedGpuHours: 30, share: 1 }],
      ["vision", { name: "vision", usedGpuHours: 10, share: 1 }],
    ]);
    const ranked = rankByFairShare([{ id: "loner", createdAtMs: NOW - 10, teamKey: null }], use, NOW);
    const words = describeRank(2, ranked[0]);
    expect(words).toBe("2nd — GPU use this week 150 % of a fair share");
    expect(words).not.toMatch(/team/);
  });
});

describe("fair share from the database (decay, grants)", () => {
  type Fixtures = typeof import("@/server/testing/booking-fixtures");
  let fx: Fixtures;
  let teams: typeof import("@/server/teams/team-service");
  let db: typeof import("@/server/core/db").db;
  let grantWaiting: typeof import("@/server/waitlist/grant-waiting").grantWaiting;
  let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
  let listWaitlist: typeof import("@/server/waitlist/list-waitlist").listWaitlist;
  let teamStandings: typeof import("@/server/waitlist/fair-share").teamStandings;
  let admin: Actor;

  beforeAll(async () => {
    await useTestDatabase();
    fx = await import("@/server/testing/booking-fixtures");
    teams = await import("@/server/teams/team-service");
    ({ db } = await import("@/server/core/db"));
    ({ grantWaiting } = await import("@/server/waitlist/grant-waiting"));
    ({ joinWaitlist } = await import("@/server/waitlist/join-waitlist"));
    ({ listWaitlist } = await import("@/server/waitlist/list-waitlist"));
    ({ teamStandings } = await import("@/server/waitlist/fair-share"));
    admin = await fx.createTestUser("admin");
  }, 120_000);

  /** A finished booking of `gpus` GPUs for `hours`, ending `agoHours` before NOW, written directly (bookings in the past cannot be made). */
  async function pastBooking(person: Actor, teamId: string, hostId: string, gpuIds: string[], hours: number, agoHours: number) {
    const endsAt = new Date(NOW - agoHours * HOUR_MS);
    const startsAt = new Date(endsAt.getTime() - hours * HOUR_MS);
    await db().reservation.create({
      data: { userId: person.id, hostId, teamId, startsAt, endsAt, purpose: "past", gpus: { create: gpuIds.map((gpuId) => ({ gpuId, startsAt, endsAt })) } },
    });
  }

  it("decays with a 7-day half-life and serves the team below its share first when a GPU frees up", async () => {
    const host = await fx.createTestHost(1);
    const gpu = await db().gpu.findFirstOrThrow({ where: { hostId: host.id }, select: { id: true } });
    const [viv, nat] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const vision = await teams.createTeam(admin, { name: uniqueName("vision") });
    const nlp = await teams.createTeam(admin, { name: uniqueName("nlp") });
    await teams.addTeamMember(admin, vision.id, { username: viv.username });
    await teams.addTeamMember(admin, nlp.id, { username: nat.username });
    // Vision: 10 h just now; nlp: 16 h two weeks ago, worth a quarter (4 h) today.
    await pastBooking(viv, vision.id, host.id, [gpu.id], 10, 0.001);
    await pastBooking(nat, nlp.id, host.id, [gpu.id], 16, 14 * 24);
    const standing = await teamStandings(db(), NOW);
    // 10 hours ending now weigh 2^(-t/7 d) each: 9.8 in all.
    expect(standing.get(vision.id)?.usedGpuHours).toBeCloseTo(9.8, 1);
    expect(standing.get(nlp.id)?.usedGpuHours).toBeCloseTo(4, 0);

    // The GPU is busy until NOW + 1 h; vision queues first, nlp second.
    const bookedBy = await fx.createTestUser();
    const { createBooking } = await import("@/server/bookings/commands/create-booking");
    await createBooking(bookedBy, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "busy" }, { now: new Date(NOW) });
    const first = await joinWaitlist(viv, { count: 1, host: host.name, durationMinutes: 30, purpose: "vision job" }, { now: new Date(NOW + 60_000) });
    const second = await joinWaitlist(nat, { count: 1, host: host.name, durationMinutes: 30, purpose: "nlp job" }, { now: new Date(NOW + 120_000) });
    // Alone, vision's request was 1st; nlp's, arriving later, goes ahead of it.
    expect(first.position).toBe(1);
    expect(second.position).toBe(1);

    const queue = (await listWaitlist(new Date(NOW + 180_000))).filter((entry) => entry.host === host.name);
    expect(queue.map((entry) => entry.purpose)).toEqual(["nlp job", "vision job"]);
    expect(queue[1].orderReason).toMatch(new RegExp(`^2nd — ${vision.name} used \\d+ % of its share this week$`));
    expect(queue[1].team).toBe(vision.name);

    const grants = await grantWaiting({ now: new Date(NOW + 61 * 60_000) });
    const mine = grants.filter((grant) => grant.hostName === host.name);
    expect(mine.map((grant) => grant.purpose)).toEqual(["nlp job"]);
    const booked = await db().reservation.findUniqueOrThrow({ where: { id: mine[0].reservationId }, select: { teamId: true } });
    expect(booked.teamId).toBe(nlp.id);
  });

  it("a waiting request over its team's limit is skipped, and the next one is served", async () => {
    const host = await fx.createTestHost(1);
    const [capped, free] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const cappedTeam = await teams.createTeam(admin, { name: uniqueName("capped"), limits: { maxGpus: 1 } });
    await teams.addTeamMember(admin, cappedTeam.id, { username: capped.username });
    await joinWaitlist(capped, { count: 1, host: host.name, durationMinutes: 30, purpose: "over" }, { now: new Date(NOW) });
    await joinWaitlist(free, { count: 1, host: host.name, durationMinutes: 30, purpose: "fits" }, { now: new Date(NOW + 1000) });
    // The admin lowers the limit while the request waits (one asking for more than the limit at the time is refused when it joins).
    await teams.updateTeam(admin, cappedTeam.id, { limits: { maxGpus: 0 } });
    // The queue says so before the grant: the limited request takes no GPU in the plan, the next one starts now.
    const queue = (await listWaitlist(new Date(NOW + 1500))).filter((entry) => entry.host === host.name);
    expect(queue.map((entry) => [entry.purpose, entry.waitingBecause?.kind ?? null])).toEqual([
      ["over", "limit"],
      ["fits", null],
    ]);
    expect(queue[1]!.estimatedStartAt).toBe(new Date(NOW + 1500).toISOString());
    const grants = (await grantWaiting({ now: new Date(NOW + 2000) })).filter((grant) => grant.hostName === host.name);
    expect(grants.map((grant) => grant.purpose)).toEqual(["fits"]);
  });

  it("counts bookings that named no team (made before joining) for the person's accounting team, as the limits do", async () => {
    const host = await fx.createTestHost(1);
    const gpu = await db().gpu.findFirstOrThrow({ where: { hostId: host.id }, select: { id: true } });
    const lin = await fx.createTestUser();
    // Lin booked 8 h without a team, then joined two teams; the second is her accounting team.
    const endsAt = new Date(NOW - 60_000);
    const startsAt = new Date(endsAt.getTime() - 8 * HOUR_MS);
    await db().reservation.create({ data: { userId: lin.id, hostId: host.id, startsAt, endsAt, purpose: "before joining", gpus: { create: [{ gpuId: gpu.id, startsAt, endsAt }] } } });
    const withoutTeam = (await teamStandings(db(), NOW)).get(null)?.usedGpuHours ?? 0;
    const first = await teams.createTeam(admin, { name: uniqueName("first") });
    const accounting = await teams.createTeam(admin, { name: uniqueName("accounting") });
    await teams.addTeamMember(admin, first.id, { username: lin.username });
    await teams.addTeamMember(admin, accounting.id, { username: lin.username, accounting: true });
    const standing = await teamStandings(db(), NOW);
    // 8 hours ending a minute ago, decayed with the 7-day half-life: 7.87.
    const linHours = standing.get(accounting.id)?.usedGpuHours ?? 0;
    expect(linHours).toBeCloseTo(7.87, 2);
    expect(standing.get(first.id)?.usedGpuHours).toBe(0);
    // The limits count the same booking for the same team.
    const { bookedRanges } = await import("@/server/bookings/rules/booked-ranges");
    expect(gpuHoursOf(await bookedRanges(db(), { teamId: accounting.id }, NOW - 24 * HOUR_MS, NOW), NOW - 24 * HOUR_MS, NOW)).toBeCloseTo(8, 6);
    // And the group of people without a team no longer counts it.
    expect(withoutTeam - (standing.get(null)?.usedGpuHours ?? 0)).toBeCloseTo(linHours, 6);
  });
});
