import { beforeAll, describe, expect, it } from "vitest";
import type { QuotaExceededError } from "@/server/bookings/rules/check-limits";
import type { Actor } from "@/server/access/actor";
import { uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Team and person limits, enforced in the booking transaction, on SQLite
 * and PostgreSQL: GPUs at once, GPU-hours per rolling 7 days, longest
 * booking, hosts with weekly windows; extensions and "any N" respect
 * them; two bookings that together exceed a limit leave exactly one.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let changeBookingEnd: typeof import("@/server/bookings/commands/change-booking").changeBookingEnd;
let joinWaitlist: typeof import("@/server/waitlist/join-waitlist").joinWaitlist;
let teams: typeof import("@/server/teams/team-service");
let db: typeof import("@/server/core/db").db;
let fx: Fixtures;
let admin: Actor;

const NOW = new Date("2026-11-30T10:00:00Z"); // a Monday
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000).toISOString();

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ changeBookingEnd } = await import("@/server/bookings/commands/change-booking"));
  ({ joinWaitlist } = await import("@/server/waitlist/join-waitlist"));
  teams = await import("@/server/teams/team-service");
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
  admin = await fx.createTestUser("admin");
}, 120_000);

async function teamWith(limits: Parameters<typeof teams.createTeam>[1]["limits"], ...people: Actor[]) {
  const team = await teams.createTeam(admin, { name: uniqueName("team"), limits });
  for (const person of people) await teams.addTeamMember(admin, team.id, { username: person.username });
  return team;
}

function quota(error: unknown) {
  return (error as QuotaExceededError).quota;
}

describe("team and person limits", () => {
  it("a team's GPUs-at-once limit counts every member's bookings and says when room frees up", async () => {
    const host = await fx.createTestHost(8);
    const [ana, ben] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const team = await teamWith({ maxGpus: 4 }, ana, ben);
    await createBooking(ana, { host: host.name, gpus: [0, 1, 2], startsAt: at(0), durationMinutes: 480, purpose: "train" }, { now: NOW });
    const booked = await createBooking(ben, { host: host.name, gpus: [3], startsAt: at(0), durationMinutes: 60, purpose: "eval" }, { now: NOW });
    expect(booked.id).toBeTruthy();
    expect(await db().reservation.findUniqueOrThrow({ where: { id: booked.id }, select: { teamId: true } })).toEqual({ teamId: team.id });

    const error = await fx.refusal(createBooking(ben, { host: host.name, count: 2, startsAt: at(0), durationMinutes: 60, purpose: "more" }, { now: NOW }));
    expect(error.code).toBe("quota_exceeded");
    expect(error.status).toBe(409);
    // 2 more GPUs fit once ana's 3 GPUs end at 18:00 (ben's 1 GPU ends at 11:00, which leaves 3 + 2 > 4).
    expect(error.message).toBe(`${team.name}: 4 of 4 GPUs at once; 2 free up at 2026-11-30 18:00 UTC (this booking asks for 2)`);
    expect(quota(error)).toEqual({ limit: "maxGpus", scope: "team", subject: team.name, used: 4, max: 4, requested: 2, freesAt: "2026-11-30T18:00:00.000Z" });
    expect(await db().reservation.count({ where: { hostId: host.id } })).toBe(2);
  });

  it("a person's own limit overrides the team's for them", async () => {
    const host = await fx.createTestHost(8);
    const [lead, visitor] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    await teamWith({ maxGpus: 8 }, lead, visitor);
    await teams.setPersonLimits(admin, visitor.id, { maxGpus: 1 });
    await createBooking(visitor, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "one" }, { now: NOW });
    const error = await fx.refusal(createBooking(visitor, { host: host.name, gpus: [1], durationMinutes: 60, purpose: "two" }, { now: NOW }));
    expect(quota(error)).toMatchObject({ limit: "maxGpus", scope: "person", subject: visitor.username, used: 1, max: 1 });
    // The lead still books under the team's limit.
    await createBooking(lead, { host: host.name, gpus: [1, 2, 3], durationMinutes: 60, purpose: "lead" }, { now: NOW });
  });

  it("GPU-hours per rolling 7 days: bookings in the past week and ahead count; the refusal says what is used", async () => {
    const host = await fx.createTestHost(4);
    const person = await fx.createTestUser();
    const team = await teamWith({ gpuHoursPer7Days: 20 }, person);
    await createBooking(person, { host: host.name, gpus: [0, 1], startsAt: at(60 * 24), durationMinutes: 8 * 60, purpose: "16 h" }, { now: NOW });
    await createBooking(person, { host: host.name, gpus: [2], startsAt: at(60 * 48), durationMinutes: 4 * 60, purpose: "4 h" }, { now: NOW });
    const error = await fx.refusal(createBooking(person, { host: host.name, gpus: [3], startsAt: at(60 * 72), durationMinutes: 60, purpose: "1 h" }, { now: NOW }));
    expect(error.message).toMatch(new RegExp(`^${team.name}: 20 of 20 GPU-hours booked in 7 days \\(this booking adds 1\\); room for it from `));
    expect(quota(error)).toMatchObject({ limit: "gpuHoursPer7Days", scope: "team", used: 20, max: 20, requested: 1 });
    // Eight days later the first week's hours have left the window.
    await createBooking(person, { host: host.name, gpus: [3], startsAt: at(60 * 24 * 9), durationMinutes: 60, purpose: "later" }, { now: NOW });
  });

  it("the longest booking, and extensions past it or past GPUs at once", async () => {
    const host = await fx.createTestHost(4);
    const [person, teammate] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const team = await teamWith({ maxBookingMinutes: 120, maxGpus: 2 }, person, teammate);
    const error = await fx.refusal(createBooking(person, { host: host.name, gpus: [0], durationMinutes: 180, purpose: "long" }, { now: NOW }));
    expect(error.message).toBe(`${team.name}: bookings last at most 2 h; this one would last 3 h`);
    const booking = await createBooking(person, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "short" }, { now: NOW });
    expect(quota(await fx.refusal(changeBookingEnd(person, booking.id, { addMinutes: 90 }, { now: NOW })))).toMatchObject({ limit: "maxBookingMinutes" });
    await createBooking(teammate, { host: host.name, gpus: [1], startsAt: at(60), durationMinutes: 60, purpose: "after" }, { now: NOW });
    await createBooking(teammate, { host: host.name, gpus: [2], startsAt: at(60), durationMinutes: 60, purpose: "after" }, { now: NOW });
    // Extending into the hour where the team already holds 2 GPUs would make 3.
    expect(quota(await fx.refusal(changeBookingEnd(person, booking.id, { addMinutes: 30 }, { now: NOW })))).toMatchObject({ limit: "maxGpus", used: 2, max: 2 });
  });

  it("hosts with weekly windows: the vision servers on weekdays for vision, at weekends for everyone else; any N skips what is not allowed", async () => {
    const vision = await fx.createTestHost(2, "vision");
    const shared = await fx.createTestHost(2, "shared");
    const [visionPerson, other] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    await teamWith({ hosts: [{ host: "*" }] }, visionPerson);
    const others = await teamWith({ hosts: [{ host: "vision*", windows: [{ days: [0, 6], from: "00:00", to: "24:00" }] }, { host: shared.name }] }, other);

    const refused = await fx.refusal(createBooking(other, { host: vision.name, gpus: [0], startsAt: at(0), durationMinutes: 60, purpose: "monday" }, { now: NOW }));
    expect(refused.message).toBe(`${others.name} may book ${vision.name} only Sun, Sat 00:00–24:00 (UTC); from 2026-12-05 00:00 UTC`);
    expect(quota(refused)).toMatchObject({ limit: "hosts", freesAt: "2026-12-05T00:00:00.000Z" });
    // Saturday is theirs too.
    await createBooking(other, { host: vision.name, gpus: [0], startsAt: "2026-12-05T09:00:00Z", durationMinutes: 60, purpose: "saturday" }, { now: NOW });
    // Any 2 on any host: only the shared host is allowed on a Monday.
    const any = await createBooking(other, { count: 2, startsAt: at(0), durationMinutes: 60, purpose: "any" }, { now: NOW });
    expect(any.host.name).toBe(shared.name);
    await createBooking(visionPerson, { host: vision.name, gpus: [1], startsAt: at(0), durationMinutes: 60, purpose: "theirs" }, { now: NOW });
  });

  it("a booking names one of the person's teams, or is refused for a team they are not in", async () => {
    const host = await fx.createTestHost(2);
    const person = await fx.createTestUser();
    await teamWith({}, person);
    const second = await teamWith({ maxGpus: 0 }, person);
    const stranger = await teamWith({});
    expect((await fx.refusal(createBooking(person, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "x", team: second.name }, { now: NOW }))).code).toBe("quota_exceeded");
    expect((await fx.refusal(createBooking(person, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "x", team: stranger.name }, { now: NOW }))).code).toBe("bad_request");
    // The accounting team (the first) is the default.
    await createBooking(person, { host: host.name, gpus: [0], durationMinutes: 60, purpose: "x" }, { now: NOW });
  });
});

describe("the queue and the limits", () => {
  it("refuses at once a queued request that no freed GPU can ever let fit, and queues one that only waits for room", async () => {
    const host = await fx.createTestHost(4);
    const vision = await fx.createTestHost(4, "vision");
    const [visitor, member] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const team = await teamWith({ maxGpus: 4, maxBookingMinutes: 240, gpuHoursPer7Days: 6, hosts: [{ host: host.name }] }, visitor, member);
    await teams.setPersonLimits(admin, visitor.id, { maxGpus: 2 });
    const wait = (who: Actor, request: { count: number; durationMinutes: number; host?: string }) => fx.refusal(joinWaitlist(who, { purpose: "queued", host: host.name, ...request }, { now: NOW }));

    const tooMany = await wait(visitor, { count: 3, durationMinutes: 60 });
    expect(tooMany.status).toBe(409);
    expect(tooMany.message).toBe(`${visitor.username}: at most 2 GPUs at once; this request asks for 3, so it would wait forever`);
    expect(quota(tooMany)).toEqual({ limit: "maxGpus", scope: "person", subject: visitor.username, used: null, max: 2, requested: 3, freesAt: null });
    expect(quota(await wait(member, { count: 1, durationMinutes: 300 }))).toMatchObject({ limit: "maxBookingMinutes", scope: "team", subject: team.name, max: 240 });
    expect(quota(await wait(member, { count: 4, durationMinutes: 120 }))).toMatchObject({ limit: "gpuHoursPer7Days", max: 6, requested: 8 });
    expect(quota(await wait(member, { count: 1, durationMinutes: 60, host: vision.name }))).toMatchObject({ limit: "hosts" });
    expect(await db().waitlistEntry.count({ where: { userId: { in: [visitor.id, member.id] } } })).toBe(0);

    // Within every limit, only short of free GPUs now: it waits.
    await createBooking(member, { host: host.name, gpus: [0, 1], durationMinutes: 60, purpose: "holds" }, { now: NOW });
    const queued = await joinWaitlist(visitor, { count: 2, host: host.name, durationMinutes: 60, purpose: "queued" }, { now: NOW });
    expect(queued.position).toBeGreaterThan(0);
  });
});

describe("the quota race", () => {
  it("two members of one team booking on two hosts at once, together over the team's limit: exactly one gets it, in every round", async () => {
    for (let round = 0; round < 5; round += 1) {
      const [a, b] = await Promise.all([fx.createTestHost(2), fx.createTestHost(2)]);
      const [ana, ben] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
      const team = await teamWith({ maxGpus: 3 }, ana, ben);
      const outcomes = await Promise.allSettled([
        createBooking(ana, { host: a.name, gpus: [0, 1], durationMinutes: 60, purpose: "race a" }, { now: NOW }),
        createBooking(ben, { host: b.name, gpus: [0, 1], durationMinutes: 60, purpose: "race b" }, { now: NOW }),
      ]);
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      const lost = outcomes.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult;
      expect(lost.reason.code).toBe("quota_exceeded");
      expect(await db().reservationGpu.count({ where: { reservation: { teamId: team.id } } })).toBe(2);
    }
  });
});
