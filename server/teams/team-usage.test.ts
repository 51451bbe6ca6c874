import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/server/access/actor";
import type { MinuteRow } from "@/server/minutes/minute-row";
import { uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Usage that names everyone, on SQLite and PostgreSQL: the minute rollups'
 * attributed person (who ran, from the tick) on GPUs nobody booked adds up
 * per person and team, and the team's booked GPU-hours are the quotas' own figure.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let fx: Fixtures;
let teams: typeof import("@/server/teams/team-service");
let getTeamUsage: typeof import("@/server/teams/team-usage").getTeamUsage;
let upsertMinuteRows: typeof import("@/server/history/rollup-store").upsertMinuteRows;
let getUsageTables: typeof import("@/server/history/usage-report").getUsageTables;
let db: typeof import("@/server/core/db").db;
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let admin: Actor;

const NOW = Date.parse("2026-12-01T10:00:00Z");

beforeAll(async () => {
  await useTestDatabase();
  fx = await import("@/server/testing/booking-fixtures");
  teams = await import("@/server/teams/team-service");
  ({ getTeamUsage } = await import("@/server/teams/team-usage"));
  ({ upsertMinuteRows } = await import("@/server/history/rollup-store"));
  ({ getUsageTables } = await import("@/server/history/usage-report"));
  ({ db } = await import("@/server/core/db"));
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  admin = await fx.createTestUser("admin");
}, 120_000);

describe("use without a booking, by who ran it", () => {
  it("adds up the rollups' attributed person per person and team; booked minutes and nobody's work stay apart", async () => {
    const host = await fx.createTestHost(3);
    const [bob, dave] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const [g0, g1, g2] = host.gpus.map((gpu) => gpu.uuid);
    const minutes = (gpuUuid: string, count: number, row: Partial<MinuteRow>): MinuteRow[] =>
      Array.from({ length: count }, (_, i) => ({
        gpuUuid, minute: new Date(NOW + i * 60_000), hostId: host.id, samples: 60, utilAvg: 50, utilMax: 50, memUsedAvg: 1000, memUsedMax: 1000,
        memTotal: 81559, powerAvg: 100, tempAvg: 40, tempMax: 41, bookedByUserId: null, runnerUserId: null, busy: true, simulated: false, ...row,
      }));
    // Ten minutes each: bob's Slurm job on GPU 0 and dave's container on GPU 1, nobody booked; then bob on GPU 1 under his own booking;
    // GPU 2 busy with work nobody could be named for.
    await upsertMinuteRows(db(), [
      ...minutes(g0, 10, { runnerUserId: bob.id }),
      ...minutes(g1, 10, { runnerUserId: dave.id }),
      ...minutes(g1, 10, { runnerUserId: bob.id, bookedByUserId: bob.id }).map((row) => ({ ...row, minute: new Date(row.minute.getTime() + 20 * 60_000) })),
      ...minutes(g2, 10, {}),
    ]);

    const research = await teams.createTeam(admin, { name: uniqueName("research") });
    await teams.addTeamMember(admin, research.id, { username: bob.username });
    await teams.addTeamMember(admin, research.id, { username: dave.username, lead: true });

    const range = { fromMs: NOW, toMs: NOW + 3600_000, nowMs: NOW + 3600_000, minuteRetentionMs: 30 * 86_400_000 };
    const report = await getTeamUsage(admin, { ...range, team: research.name });
    const byLabel = Object.fromEntries(report.unbooked.map((row) => [row.label, row.usedWithoutBookingGpuHours]));
    expect(byLabel[bob.name]).toBeCloseTo(10 / 60, 6);
    expect(byLabel[dave.name]).toBeCloseTo(10 / 60, 6);
    expect(byLabel["Nobody named"]).toBeGreaterThanOrEqual(10 / 60 - 1e-9);
    expect(report.teams).toHaveLength(1);
    expect(report.teams[0].usedWithoutBookingGpuHours).toBeCloseTo(20 / 60, 6);
    expect(report.teams[0].members.map((member) => member.usedWithoutBookingGpuHours.toFixed(3))).toEqual([(10 / 60).toFixed(3), (10 / 60).toFixed(3)]);

    // The people table of the fleet report: a "use without a booking" column per person.
    const tables = await getUsageTables({ range: { choice: "custom", ...range }, groupBy: "host", nowMs: range.nowMs, minuteRetentionMs: range.minuteRetentionMs });
    expect(tables.people.find((person) => person.userId === dave.id)?.usedWithoutBookingGpuHours).toBeCloseTo(10 / 60, 6);
    expect(tables.people.find((person) => person.userId === bob.id)?.usedWithoutBookingGpuHours).toBeCloseTo(10 / 60, 6);

    // The lead sees their team and their members only; a member who leads nothing sees nothing.
    const asLead = await getTeamUsage(dave, range);
    expect(asLead.teams.map((team) => team.name)).toEqual([research.name]);
    expect(asLead.unbooked.map((row) => row.label).sort()).toEqual([bob.name, dave.name].sort());
    expect((await fx.refusal(getTeamUsage(bob, range))).code).toBe("forbidden");
  });
});

describe("booked GPU-hours per team", () => {
  it("are the figure the quotas count: the refusal's 'used' and the report agree", async () => {
    const host = await fx.createTestHost(2);
    const person = await fx.createTestUser();
    const team = await teams.createTeam(admin, { name: uniqueName("quota"), limits: { gpuHoursPer7Days: 5 } });
    await teams.addTeamMember(admin, team.id, { username: person.username });
    const start = new Date(NOW + 3600_000);
    await createBooking(person, { host: host.name, gpus: [0, 1], startsAt: start.toISOString(), durationMinutes: 120, purpose: "4 GPU-h" }, { now: new Date(NOW) });
    const error = await fx.refusal(createBooking(person, { host: host.name, gpus: [0], startsAt: new Date(NOW + 4 * 3600_000).toISOString(), durationMinutes: 120, purpose: "2 more" }, { now: new Date(NOW) }));
    const used = (error as unknown as { quota: { used: number } }).quota.used;
    const report = await getTeamUsage(admin, { fromMs: NOW, toMs: NOW + 86_400_000, nowMs: NOW + 86_400_000, minuteRetentionMs: 30 * 86_400_000, team: team.id });
    expect(report.teams[0].bookedGpuHours).toBeCloseTo(4, 6);
    expect(used).toBe(4);
    expect(report.teams[0].members[0].bookedGpuHours).toBeCloseTo(4, 6);
  });
});
