import { beforeAll, describe, expect, it } from "vitest";
import type { GpuReconciliation, ProcessAttribution } from "@/lib/attribution";
import type { Actor } from "@/server/reservations/actor";
import type { TickView } from "@/server/tick/tick-view";
import { uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Usage that names everyone, on SQLite and PostgreSQL: the tick's
 * attribution of work nobody booked is recorded per GPU-minute with who ran
 * it, the report adds it up per person and team, and the team's booked
 * GPU-hours are the quotas' own figure.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let fx: Fixtures;
let teams: typeof import("@/server/teams/team-service");
let getTeamUsage: typeof import("@/server/teams/team-usage").getTeamUsage;
let recorder: typeof import("@/server/teams/unbooked-use-recorder");
let createReservation: typeof import("@/server/reservations/create-reservation").createReservation;
let admin: Actor;

const NOW = Date.parse("2026-12-01T10:00:00Z");

beforeAll(async () => {
  await useTestDatabase();
  fx = await import("@/server/testing/booking-fixtures");
  teams = await import("@/server/teams/team-service");
  ({ getTeamUsage } = await import("@/server/teams/team-usage"));
  recorder = await import("@/server/teams/unbooked-use-recorder");
  ({ createReservation } = await import("@/server/reservations/create-reservation"));
  admin = await fx.createTestUser("admin");
}, 120_000);

function process(person: Actor | null, login: string | null, kind: "login" | "container" | "slurm"): ProcessAttribution {
  return { pid: 100, person: person ? { id: person.id, username: person.username, name: person.name } : null, reservationId: null, login, evidence: { kind, value: login }, intruder: false } as ProcessAttribution;
}

function unbooked(processes: ProcessAttribution[]): GpuReconciliation {
  return { state: "unbooked_use", reservationId: null, holder: null, processes, problem: null } as GpuReconciliation;
}

function view(nowMs: number, hostId: string, states: Record<string, GpuReconciliation>): TickView {
  return {
    nowMs,
    hosts: [],
    gpus: Object.keys(states).map((uuid) => ({ uuid, hostId }) as TickView["gpus"][number]),
    gpuStates: states,
    changed: {},
    bookings: [],
    activeBookings: new Map(),
  };
}

describe("use without a booking, by who ran it", () => {
  it("names the person of a login, a container's owner, and a login without an account; one figure per person", async () => {
    const host = await fx.createTestHost(3);
    const [bob, dave] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const [g0, g1, g2] = host.gpus.map((gpu) => gpu.uuid);
    const consumer = recorder.unbookedUseRecorder();
    await consumer.start?.(NOW);
    // Ten minutes, one tick a second: bob's Slurm job on GPU 0, dave's container on GPU 1, frank (no account) on GPU 2.
    for (let s = 0; s < 600; s += 1) {
      consumer.consume?.(
        view(NOW + s * 1000, host.id, {
          [g0]: unbooked([process(bob, bob.username, "slurm")]),
          [g1]: unbooked([process(dave, "root", "container")]),
          [g2]: unbooked([process(null, "frank", "login")]),
        }),
      );
    }
    await consumer.stop?.();

    const research = await teams.createTeam(admin, { name: uniqueName("research") });
    await teams.addTeamMember(admin, research.id, { username: bob.username });
    await teams.addTeamMember(admin, research.id, { username: dave.username, lead: true });

    const report = await getTeamUsage(admin, { fromMs: NOW, toMs: NOW + 3600_000, nowMs: NOW + 3600_000, minuteRetentionMs: 30 * 86_400_000, team: research.name });
    const byLabel = Object.fromEntries(report.unbooked.map((row) => [row.label, Math.round(row.usedWithoutBookingGpuHours * 600) / 600]));
    expect(byLabel).toMatchObject({ [bob.name]: 10 / 60, [dave.name]: 10 / 60, "frank (no account)": 10 / 60 });
    expect(report.teams).toHaveLength(1);
    expect(report.teams[0].usedWithoutBookingGpuHours).toBeCloseTo(20 / 60, 2);
    expect(report.teams[0].members.map((member) => member.usedWithoutBookingGpuHours.toFixed(3))).toEqual([(10 / 60).toFixed(3), (10 / 60).toFixed(3)]);

    // The lead sees their team and their members only; a member who leads nothing sees nothing.
    const asLead = await getTeamUsage(dave, { fromMs: NOW, toMs: NOW + 3600_000, nowMs: NOW + 3600_000, minuteRetentionMs: 30 * 86_400_000 });
    expect(asLead.teams.map((team) => team.name)).toEqual([research.name]);
    expect(asLead.unbooked.map((row) => row.label).sort()).toEqual([bob.name, dave.name].sort());
    expect((await fx.refusal(getTeamUsage(bob, { fromMs: NOW, toMs: NOW + 3600_000, nowMs: NOW, minuteRetentionMs: 1 }))).code).toBe("forbidden");
  });

  it("a booked GPU's work is not use without a booking", () => {
    const state = unbooked([process(null, "eve", "login")]);
    const tick = view(NOW, "h", { "GPU-x": state });
    expect(recorder.unbookedNow(tick)).toEqual([{ gpuUuid: "GPU-x", hostId: "h", ranBy: "login:eve" }]);
    const booked = { ...tick, activeBookings: new Map([["GPU-x", {} as never]]) };
    expect(recorder.unbookedNow(booked)).toEqual([]);
    expect(recorder.unbookedNow(view(NOW, "h", { "GPU-x": { ...state, state: "booked_in_use" } }))).toEqual([]);
  });
});

describe("booked GPU-hours per team", () => {
  it("are the figure the quotas count: the refusal's 'used' and the report agree", async () => {
    const host = await fx.createTestHost(2);
    const person = await fx.createTestUser();
    const team = await teams.createTeam(admin, { name: uniqueName("quota"), limits: { gpuHoursPer7Days: 5 } });
    await teams.addTeamMember(admin, team.id, { username: person.username });
    const start = new Date(NOW + 3600_000);
    await createReservation(person, { host: host.name, gpus: [0, 1], startsAt: start.toISOString(), durationMinutes: 120, purpose: "4 GPU-h" }, { now: new Date(NOW) });
    const error = await fx.refusal(createReservation(person, { host: host.name, gpus: [0], startsAt: new Date(NOW + 4 * 3600_000).toISOString(), durationMinutes: 120, purpose: "2 more" }, { now: new Date(NOW) }));
    const used = (error as unknown as { quota: { used: number } }).quota.used;
    const report = await getTeamUsage(admin, { fromMs: NOW, toMs: NOW + 86_400_000, nowMs: NOW + 86_400_000, minuteRetentionMs: 30 * 86_400_000, team: team.id });
    expect(report.teams[0].bookedGpuHours).toBeCloseTo(4, 6);
    expect(used).toBe(4);
    expect(report.teams[0].members[0].bookedGpuHours).toBeCloseTo(4, 6);
  });
});
