import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { UsageReport } from "@/lib/domain/usage-types";
import { db } from "@/server/core/db";
import { bookedByOfMinute, type BookedInterval } from "@/server/history/booked-intervals";
import { HOUR_MS, MINUTE_MS, type MinuteRow } from "@/server/minutes/minute-row";
import { recomputeHours, upsertMinuteRows } from "@/server/history/rollup-store";
import { toCsv } from "@/server/history/usage-csv";
import { getUsageReport } from "@/server/history/usage-report";
import { ensureLocalHost, recordHostInventory } from "@/server/hosts/host-registry";
import { bookedRanges } from "@/server/bookings/rules/booked-ranges";
import { gpuHoursOf } from "@/server/bookings/rules/gpu-hours";
import type { Actor } from "@/server/access/actor";
import { makeGpu, makeMinuteRow, uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The usage report tells one story (issue 38). Lin's page said "idle 134 %
 * of booked time" (a booking's edge minutes counted whole); a page's top
 * card and its table disagreed on use without a booking; hours before the
 * server first reported counted as idle. Here: one such history by hand,
 * then random histories (people, a team, hosts, bookings at odd seconds,
 * minutes with gaps and hosts that start reporting late), read back from
 * the minute and the hour rollups: every surface sums to the same totals,
 * idle ≤ booked everywhere, and booked hours are what the limits count.
 */

const DAY_MS = 24 * HOUR_MS;
const RANGE_MS = 3 * HOUR_MS;
let teams: typeof import("@/server/teams/team-service");
let getTeamUsage: typeof import("@/server/teams/team-usage").getTeamUsage;
let admin: Actor;

beforeAll(async () => {
  await useTestDatabase();
  teams = await import("@/server/teams/team-service");
  ({ getTeamUsage } = await import("@/server/teams/team-usage"));
  const id = randomUUID();
  const username = uniqueName("admin").toLowerCase();
  await db().user.create({ data: { id, name: "Admin", email: `${username}@example.test`, username, role: "admin" } });
  admin = { id, username, name: "Admin", role: "admin", unixLogin: null };
}, 60_000);

/** A small seeded generator, so that a failing history can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)) };
}

async function person(name: string): Promise<string> {
  const username = uniqueName(name).toLowerCase();
  return (await db().user.create({ data: { id: randomUUID(), name, email: `${username}@example.test`, username } })).id;
}

interface History {
  t0: number;
  people: string[];
  hosts: string[];
  team: { id: string; name: string };
  /** GPU-hours idle release handed back by releases in the range. */
  handedBack: number;
}

/** People, two hosts, bookings at odd seconds and minutes with gaps, starting `t0`. */
async function makeHistory(seed: number, t0: number): Promise<History> {
  const r = random(seed);
  const people = await Promise.all(["Lin", "Dave", "Mo"].map((name) => person(`${name} ${seed}`)));
  const team = await teams.createTeam(admin, { name: uniqueName("team") });
  for (const id of people.slice(0, 2)) {
    const user = await db().user.findUniqueOrThrow({ where: { id }, select: { username: true } });
    await teams.addTeamMember(admin, team.id, { username: user.username! });
  }
  const hosts: string[] = [];
  const intervals: (BookedInterval & { hostId: string })[] = [];
  const gpus: { uuid: string; hostId: string; reportsFromMs: number }[] = [];
  for (let h = 0; h < 2; h++) {
    const host = await ensureLocalHost(uniqueName(`usage${h}`), false);
    hosts.push(host.id);
    const made = Array.from({ length: r.int(1, 3) }, (_, index) => makeGpu({ index }));
    await recordHostInventory(host.id, { name: host.name, driverVersion: null, cudaVersion: null }, made, new Date(t0));
    // A host whose agent starts reporting late: the bookings' earlier hours have no readings.
    const reportsFromMs = t0 + (r.next() < 0.5 ? 0 : r.int(10, 70) * MINUTE_MS);
    for (const gpu of made) {
      const { id: gpuId } = await db().gpu.findFirstOrThrow({ where: { uuid: gpu.uuid }, select: { id: true } });
      gpus.push({ uuid: gpu.uuid, hostId: host.id, reportsFromMs });
      // Back-to-back bookings at odd seconds, some from before the range.
      let at = t0 - r.int(0, 40) * MINUTE_MS + r.int(0, 59) * 1000;
      while (at < t0 + RANGE_MS) {
        const length = r.int(5, 100) * MINUTE_MS + r.int(0, 59) * 1000;
        if (r.next() < 0.7) {
          const userId = people[r.int(0, people.length - 1)]!;
          const startsAt = new Date(at);
          const endsAt = new Date(at + length);
          const created = await db().reservation.create({
            data: { userId, hostId: host.id, startsAt, endsAt, purpose: "history", gpus: { create: [{ gpuId, startsAt, endsAt }] } },
            select: { id: true },
          });
          intervals.push({ gpuUuid: gpu.uuid, reservationId: created.id, userId, startMs: at, endMs: at + length, hostId: host.id });
        }
        at += length + r.int(0, 30) * MINUTE_MS;
      }
    }
  }
  const rows: MinuteRow[] = [];
  for (const gpu of gpus) {
    const own = intervals.filter((interval) => interval.gpuUuid === gpu.uuid);
    for (let minute = gpu.reportsFromMs; minute < t0 + RANGE_MS; minute += MINUTE_MS) {
      if (r.next() < 0.1) continue; // a gap in the readings
      const util = r.next() < 0.4 ? 0 : r.int(20, 100);
      rows.push(
        makeMinuteRow(gpu.uuid, gpu.hostId, minute, {
          utilAvg: util,
          utilMax: util,
          bookedByUserId: bookedByOfMinute(own, minute),
          runnerUserId: util > 0 && r.next() < 0.5 ? people[r.int(0, people.length - 1)]! : null,
          busy: util > 0,
        }),
      );
    }
  }
  await upsertMinuteRows(db(), rows);
  await recomputeHours(db(), [t0, t0 + HOUR_MS, t0 + 2 * HOUR_MS]);
  // Some bookings ended by idle release (some before the range), each handing back up to two hours.
  let handedBack = 0;
  for (const interval of intervals) {
    if (r.next() < 0.7) continue;
    const scheduledEndMs = interval.endMs + r.int(1, 120) * MINUTE_MS;
    await db().idleRelease.create({
      data: { reservationId: interval.reservationId, userId: interval.userId, hostId: interval.hostId, gpuCount: 1, idleSince: new Date(interval.startMs), at: new Date(interval.endMs), scheduledEndAt: new Date(scheduledEndMs) },
    });
    if (interval.endMs >= t0 && interval.endMs < t0 + RANGE_MS) handedBack += (scheduledEndMs - interval.endMs) / HOUR_MS;
  }
  return { t0, people, hosts, team, handedBack };
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const EPS = 1e-6;

function reportOf(t0: number, nowMs: number, userId?: string): Promise<UsageReport> {
  return getUsageReport({ range: { choice: "custom", fromMs: t0, toMs: t0 + RANGE_MS }, groupBy: "host", nowMs, minuteRetentionMs: 30 * DAY_MS, ...(userId ? { userId } : {}) });
}

/** Every surface's figures of one report agree, and idle never exceeds booked. */
function expectOneStory(report: UsageReport) {
  const booked = report.people.filter((p) => p.userId !== null);
  for (const row of [...booked, ...report.hosts]) {
    expect(row.idleBookedGpuHours).toBeLessThanOrEqual(row.bookedGpuHours + EPS);
    expect(row.unknownGpuHours).toBeGreaterThanOrEqual(-EPS);
    expect(row.idleBookedGpuHours + row.unknownGpuHours).toBeLessThanOrEqual(row.bookedGpuHours + EPS);
  }
  for (const row of booked) if (row.efficiencyPct !== null) expect(row.efficiencyPct).toBeLessThanOrEqual(100 + EPS);
  const { totals } = report;
  expect(totals.idleBookedGpuHours).toBeLessThanOrEqual(totals.bookedGpuHours + EPS);
  for (const [field, total] of [
    ["bookedGpuHours", totals.bookedGpuHours],
    ["idleBookedGpuHours", totals.idleBookedGpuHours],
    ["unknownGpuHours", totals.unknownGpuHours],
  ] as const) {
    expect(sum(booked.map((p) => p[field]))).toBeCloseTo(total, 6);
    expect(sum(report.hosts.map((h) => h[field]))).toBeCloseTo(total, 6);
  }
  expect(sum(booked.map((p) => p.usedGpuHours))).toBeCloseTo(totals.usedWhileBookedGpuHours, 6);
  expect(sum(report.people.map((p) => p.usedWithoutBookingGpuHours ?? 0))).toBeCloseTo(totals.unbookedUsedGpuHours, 6);
  // Use without a booking is one figure: the card, the column's sum and the "Not booked" row's used hours.
  if (report.scope === "all") expect(report.people.find((p) => p.userId === null)?.usedGpuHours ?? 0).toBeCloseTo(totals.unbookedUsedGpuHours, 6);
  // What idle release handed back: the people, the hosts and the card.
  expect(sum(booked.map((p) => p.handedBackGpuHours))).toBeCloseTo(totals.handedBackGpuHours, 6);
  expect(sum(report.hosts.map((h) => h.handedBackGpuHours))).toBeCloseTo(totals.handedBackGpuHours, 6);
  expect(sum(booked.map((p) => p.handedBackReleases))).toBe(totals.handedBackReleases);
  // The CSV carries the same rows.
  const csv = toCsv("people", report.people, report.hosts).trimEnd().split("\r\n").slice(1);
  expect(sum(csv.map((line) => Number(line.split(",")[2])))).toBeCloseTo(totals.bookedGpuHours, 1);
}

/** A host of one GPU, reporting from `t0`. */
async function oneGpuHost(prefix: string, t0: number) {
  const host = await ensureLocalHost(uniqueName(prefix), false);
  const gpu = makeGpu({ index: 0 });
  await recordHostInventory(host.id, { name: host.name, driverVersion: null, cudaVersion: null }, [gpu], new Date(t0));
  const { id: gpuId } = await db().gpu.findFirstOrThrow({ where: { uuid: gpu.uuid }, select: { id: true } });
  return { host, gpu, gpuId };
}

describe("the usage report tells one story", () => {
  it("caps idle at the booked time and calls hours without readings unknown (Lin's 134 %, Dave's idle before the server started)", async () => {
    const t0 = Date.UTC(2026, 8, 1, 10, 0, 0);
    const { host, gpu, gpuId } = await oneGpuHost("lin", t0);
    const lin = await person("Lin");
    // 59 minutes from 10:00:30: the 60 minutes it touches are held, all idle.
    const startsAt = new Date(t0 + 30_000);
    const endsAt = new Date(t0 + 30_000 + 59 * MINUTE_MS);
    await db().reservation.create({ data: { userId: lin, hostId: host.id, startsAt, endsAt, purpose: "edge", gpus: { create: [{ gpuId, startsAt, endsAt }] } } });
    // Dave booked 2 hours from 11:00; the agent reported from 12:00 only, at 90 %.
    const dave = await person("Dave");
    const daveFrom = new Date(t0 + HOUR_MS);
    const daveTo = new Date(t0 + 3 * HOUR_MS);
    await db().reservation.create({ data: { userId: dave, hostId: host.id, startsAt: daveFrom, endsAt: daveTo, purpose: "train", gpus: { create: [{ gpuId, startsAt: daveFrom, endsAt: daveTo }] } } });
    const minute = (i: number, bookedByUserId: string, utilAvg: number) =>
      makeMinuteRow(gpu.uuid, host.id, t0 + i * MINUTE_MS, { utilAvg, utilMax: utilAvg, bookedByUserId, busy: utilAvg > 0 });
    await upsertMinuteRows(db(), [...Array.from({ length: 60 }, (_, i) => minute(i, lin, 0)), ...Array.from({ length: 60 }, (_, i) => minute(120 + i, dave, 90))]);

    // Idle release gave back the last hour of a booking of Dave's that was to run to 13:30.
    const dave2 = await db().reservation.findFirstOrThrow({ where: { userId: dave }, select: { id: true } });
    await db().idleRelease.create({ data: { reservationId: dave2.id, userId: dave, hostId: host.id, gpuCount: 1, idleSince: daveFrom, at: new Date(daveTo.getTime() - 30 * MINUTE_MS), scheduledEndAt: new Date(daveTo.getTime() + 30 * MINUTE_MS) } });
    // Outside the range: not counted.
    await db().idleRelease.create({ data: { reservationId: dave2.id, userId: dave, hostId: host.id, gpuCount: 1, idleSince: new Date(t0 - DAY_MS), at: new Date(t0 - DAY_MS), scheduledEndAt: new Date(t0) } });

    const report = await reportOf(t0, t0 + RANGE_MS);
    expect(report.people.find((p) => p.userId === dave)).toMatchObject({ handedBackGpuHours: 1, handedBackReleases: 1 });
    expect(report.hosts.find((h) => h.hostId === host.id)?.handedBackGpuHours).toBe(1);
    expect(report.totals).toMatchObject({ handedBackGpuHours: 1, handedBackReleases: 1 });
    expect((await reportOf(t0, t0 + RANGE_MS, dave)).totals.handedBackGpuHours).toBe(1);
    expect((await reportOf(t0, t0 + RANGE_MS, lin)).totals.handedBackGpuHours).toBe(0);
    const linRow = report.people.find((p) => p.userId === lin)!;
    expect(linRow.bookedGpuHours).toBeCloseTo(59 / 60, 8);
    expect(linRow.idleBookedGpuHours).toBeCloseTo(59 / 60, 8);
    const daveRow = report.people.find((p) => p.userId === dave)!;
    expect(daveRow.bookedGpuHours).toBeCloseTo(2, 8);
    expect(daveRow.unknownGpuHours).toBeCloseTo(1, 8);
    expect(daveRow.idleBookedGpuHours).toBe(0);
    expect(daveRow.efficiencyPct).toBeCloseTo(90, 8);
    expectOneStory(report);
    // The member's own page says the same as the admin's.
    const own = (await reportOf(t0, t0 + RANGE_MS, lin)).people.find((p) => p.userId === lin)!;
    expect(own.idleBookedGpuHours).toBeCloseTo(linRow.idleBookedGpuHours, 8);
  });

  it("gives use without a booking one figure: the 'Not booked' row's used hours are the card's, busy hours, not utilization-weighted", async () => {
    const t0 = Date.UTC(2026, 8, 3, 10, 0, 0);
    const { host, gpu } = await oneGpuHost("squat", t0);
    const mo = await person("Mo");
    // Nobody booked the GPU; Mo's job held it for an hour at 20 %, then nobody's at 50 % for half an hour.
    await upsertMinuteRows(db(), [
      ...Array.from({ length: 60 }, (_, i) => makeMinuteRow(gpu.uuid, host.id, t0 + i * MINUTE_MS, { utilAvg: 20, utilMax: 20, bookedByUserId: null, runnerUserId: mo, busy: true })),
      ...Array.from({ length: 30 }, (_, i) => makeMinuteRow(gpu.uuid, host.id, t0 + (60 + i) * MINUTE_MS, { utilAvg: 50, utilMax: 50, bookedByUserId: null, runnerUserId: null, busy: true })),
    ]);
    const report = await reportOf(t0, t0 + RANGE_MS);
    expect(report.totals.unbookedUsedGpuHours).toBeCloseTo(1.5, 8);
    const notBooked = report.people.find((p) => p.userId === null)!;
    // It said 0.45 (utilization-weighted) beside a card of 1.5.
    expect(notBooked.usedGpuHours).toBeCloseTo(1.5, 8);
    expect(notBooked.usedWithoutBookingGpuHours).toBeCloseTo(0.5, 8);
    expect(report.people.find((p) => p.userId === mo)?.usedWithoutBookingGpuHours).toBeCloseTo(1, 8);
    expectOneStory(report);
  });

  it("counts a demo person's bookings as booked, unknown where no minute was stored (the demo's booking released for idleness before the server started)", async () => {
    const t0 = Date.UTC(2026, 8, 2, 10, 0, 0);
    const { host, gpu, gpuId } = await oneGpuHost("demo", t0);
    const frankName = uniqueName("frank").toLowerCase();
    const frank = (await db().user.create({ data: { id: randomUUID(), name: "Frank", email: `${frankName}@example.test`, username: frankName, simulated: true } })).id;
    // Booked 10:00–12:20 and released for idleness; the server started at 12:50, so no minute of it is stored.
    const startsAt = new Date(t0);
    const endsAt = new Date(t0 + 140 * MINUTE_MS);
    await db().reservation.create({ data: { userId: frank, hostId: host.id, startsAt, endsAt, purpose: "demo: notebook left open", status: "released", gpus: { create: [{ gpuId, startsAt, endsAt }] } } });
    // Later he ran a notebook for ten minutes as the booker of the simulated fleet's minutes.
    await upsertMinuteRows(db(), Array.from({ length: 10 }, (_, i) => makeMinuteRow(gpu.uuid, host.id, t0 + (170 + i) * MINUTE_MS, { utilAvg: 40, utilMax: 40, bookedByUserId: frank, busy: true })));

    const report = await reportOf(t0, t0 + RANGE_MS);
    const row = report.people.find((p) => p.userId === frank)!;
    // What his bookings page and the limits say: 2 h 20 min; the 10 minutes he held are seen, the rest unknown.
    expect(row.bookedGpuHours).toBeCloseTo(140 / 60, 8);
    expect(row.unknownGpuHours).toBeCloseTo(130 / 60, 8);
    expect(row.idleBookedGpuHours).toBe(0);
    expectOneStory(report);
  });

  for (const seed of [1, 2, 3, 4]) {
    it(`random history ${seed}: every surface sums to the same totals from the minute and the hour rollups`, async () => {
      const t0 = Date.UTC(2026, 9, seed * 2, 8, 0, 0);
      const history = await makeHistory(seed, t0);
      for (const nowMs of [t0 + RANGE_MS, t0 + 40 * DAY_MS]) {
        const report = await reportOf(t0, nowMs);
        expectOneStory(report);
        expect(report.totals.handedBackGpuHours).toBeCloseTo(history.handedBack, 6);
        for (const userId of history.people) {
          const row = report.people.find((p) => p.userId === userId);
          // Booked hours are what the limits count, whatever the resolution.
          const limitHours = gpuHoursOf(await bookedRanges(db(), { userId }, t0, t0 + RANGE_MS), t0, t0 + RANGE_MS);
          expect(row?.bookedGpuHours ?? 0).toBeCloseTo(limitHours, 6);
          // A member's own page shows their row as the admin's page does.
          const own = (await reportOf(t0, nowMs, userId)).people.find((p) => p.userId === userId);
          expect(own?.bookedGpuHours ?? 0).toBeCloseTo(row?.bookedGpuHours ?? 0, 6);
          expect(own?.idleBookedGpuHours ?? 0).toBeCloseTo(row?.idleBookedGpuHours ?? 0, 6);
        }
      }
      // The teams table counts the members' bookings made without naming a team, as the limits do.
      const teamReport = await getTeamUsage(admin, { fromMs: t0, toMs: t0 + RANGE_MS, nowMs: t0 + RANGE_MS, minuteRetentionMs: 30 * DAY_MS, team: history.team.id });
      const minute = await reportOf(t0, t0 + RANGE_MS);
      const members = history.people.slice(0, 2).map((id) => minute.people.find((p) => p.userId === id)?.bookedGpuHours ?? 0);
      expect(teamReport.teams[0]!.bookedGpuHours).toBeCloseTo(sum(members), 6);
      expect(sum(teamReport.teams[0]!.members.map((m) => m.bookedGpuHours))).toBeCloseTo(teamReport.teams[0]!.bookedGpuHours, 6);
    });
  }
});
