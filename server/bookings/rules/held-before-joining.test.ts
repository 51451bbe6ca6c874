import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/server/access/actor";
import { uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Limits count what a person holds, not how it was made (issue 38): Lin
 * booked 3 GPUs now and a weekly series before joining a team with a
 * 3-GPUs-at-once limit. The form's "N of M", the API's room and the
 * booking transaction must all count those bookings for the team.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let createRecurringBookings: typeof import("@/server/bookings/commands/create-recurring").createRecurringBookings;
let getRoom: typeof import("@/server/bookings/rules/room").getRoom;
let teams: typeof import("@/server/teams/team-service");
let fx: Fixtures;
let admin: Actor;

const NOW = new Date("2026-11-30T10:00:00Z"); // a Monday
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000).toISOString();

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ createRecurringBookings } = await import("@/server/bookings/commands/create-recurring"));
  ({ getRoom } = await import("@/server/bookings/rules/room"));
  teams = await import("@/server/teams/team-service");
  fx = await import("@/server/testing/booking-fixtures");
  admin = await fx.createTestUser("admin");
}, 120_000);

describe("limits count bookings made before joining a team", () => {
  it("the team's GPUs at once and GPU-hours include the member's earlier single and recurring bookings", async () => {
    const host = await fx.createTestHost(8);
    const [lin, kai] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    await createBooking(lin, { host: host.name, gpus: [0, 1, 2], startsAt: at(0), durationMinutes: 120, purpose: "before joining" }, { now: NOW });
    const series = await createRecurringBookings(
      lin,
      { booking: { host: host.name, gpus: [7], startsAt: at(24 * 60), durationMinutes: 60, purpose: "weekly eval" }, weekdays: [2, 4], weeks: 2, timeZone: "UTC" },
      { now: NOW },
    );
    expect(series.created.length).toBe(4);

    const team = await teams.createTeam(admin, { name: uniqueName("team"), limits: { maxGpus: 3, gpuHoursPer7Days: 8 } });
    await teams.addTeamMember(admin, team.id, { username: lin.username });
    await teams.addTeamMember(admin, team.id, { username: kai.username });

    const room = await getRoom(lin, undefined, NOW);
    expect(room.gpusNow).toEqual({ used: 3, limit: 3 });
    // 6 GPU-hours now and 2 of the series within the 7 days that include now.
    expect(room.gpuHours7Days).toEqual({ used: 8, limit: 8 });
    expect((await getRoom(kai, undefined, NOW)).gpusNow).toEqual({ used: 3, limit: 3 });

    const refused = await fx.refusal(createBooking(kai, { host: host.name, gpus: [3], startsAt: at(0), durationMinutes: 60, purpose: "over" }, { now: NOW }));
    expect(refused.code).toBe("quota_exceeded");
    expect(refused.message).toContain("3 of 3 GPUs at once");
  });

  it("a booking made for another team stays with that team", async () => {
    const host = await fx.createTestHost(4);
    const mo = await fx.createTestUser();
    const first = await teams.createTeam(admin, { name: uniqueName("first") });
    await teams.addTeamMember(admin, first.id, { username: mo.username });
    await createBooking(mo, { host: host.name, gpus: [0, 1], startsAt: at(0), durationMinutes: 60, purpose: "for first" }, { now: NOW });
    const second = await teams.createTeam(admin, { name: uniqueName("second"), limits: { maxGpus: 2 } });
    await teams.addTeamMember(admin, second.id, { username: mo.username });
    expect((await getRoom(mo, second.name, NOW)).gpusNow).toEqual({ used: 0, limit: 2 });
  });
});
