import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { UsageReport } from "@/lib/domain/usage-types";
import { db } from "@/server/core/db";
import { HOUR_MS, MINUTE_MS, type MinuteRow } from "@/server/minutes/minute-row";
import { recomputeHours, upsertMinuteRows } from "@/server/history/rollup-store";
import { toCsv } from "@/server/history/usage-csv";
import { getUsageReport } from "@/server/history/usage-report";
import { ensureLocalHost, recordHostInventory } from "@/server/hosts/host-registry";
import { bookedRanges } from "@/server/bookings/rules/booked-ranges";
import { gpuHoursOf } from "@/server/bookings/rules/gpu-hours";
import { makeGpu, uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Two hours of a three-GPU fleet with known numbers, read back through the
 * usage report from the minute rollups and again from the hourly ones.
 *
 *   host A, GPU 0: 100 % for 120 min, booked by the user, a process running
 *   host A, GPU 1:   0 % for  60 min, booked by the user (idle), then offline
 *   host B, GPU 0:  50 % for 120 min, not booked
 */
const T0 = Date.UTC(2026, 9, 1, 8, 0, 0);
const DAY_MS = 24 * HOUR_MS;
let hostA: string;
let hostB: string;
let userId: string;
let username: string;

function minutes(gpuUuid: string, hostId: string, count: number, row: Partial<MinuteRow>): MinuteRow[] {
  return Array.from({ length: count }, (_, i) => ({
    gpuUuid,
    minute: new Date(T0 + i * MINUTE_MS),
    hostId,
    samples: 60,
    utilAvg: 0,
    utilMax: 0,
    memUsedAvg: 1000,
    memUsedMax: 1000,
    memTotal: 81559,
    powerAvg: 100,
    tempAvg: 40,
    tempMax: 41,
    bookedByUserId: null,
    busy: true,
    simulated: false,
    ...row,
  }));
}

beforeAll(async () => {
  await useTestDatabase();
  const a = await ensureLocalHost(uniqueName("alpha"), false);
  const b = await ensureLocalHost(uniqueName("beta"), false);
  hostA = a.name;
  hostB = b.name;
  const a0 = makeGpu({ index: 0 });
  const a1 = makeGpu({ index: 1, name: "NVIDIA A100-SXM4-40GB" });
  const b0 = makeGpu({ index: 0, name: "NVIDIA GeForce RTX 4090" });
  const info = { driverVersion: null, cudaVersion: null };
  await recordHostInventory(a.id, { name: a.name, ...info }, [a0, a1], new Date(T0));
  await recordHostInventory(b.id, { name: b.name, ...info }, [b0], new Date(T0));
  username = uniqueName("user");
  userId = (await db().user.create({ data: { id: randomUUID(), name: "Usage Person", email: `${username}@example.test`, username } })).id;

  // The bookings behind the minutes: GPU 0 for two hours, GPU 1 for one (the figure quotas count).
  const gpuId = async (uuid: string) => (await db().gpu.findFirstOrThrow({ where: { uuid }, select: { id: true } })).id;
  for (const [uuid, hours] of [[a0.uuid, 2], [a1.uuid, 1]] as const) {
    const startsAt = new Date(T0);
    const endsAt = new Date(T0 + hours * HOUR_MS);
    await db().reservation.create({ data: { userId, hostId: a.id, startsAt, endsAt, purpose: "usage", gpus: { create: [{ gpuId: await gpuId(uuid), startsAt, endsAt }] } } });
  }
  await upsertMinuteRows(db(), [
    ...minutes(a0.uuid, a.id, 120, { utilAvg: 100, utilMax: 100, bookedByUserId: userId }),
    ...minutes(a1.uuid, a.id, 60, { utilAvg: 0, bookedByUserId: userId }),
    ...minutes(b0.uuid, b.id, 120, { utilAvg: 50, utilMax: 60 }),
  ]);
  await recomputeHours(db(), [T0, T0 + HOUR_MS]);
}, 60_000);

async function report(nowMs: number, groupBy: "host" | "model" = "host"): Promise<UsageReport> {
  return getUsageReport({ range: { choice: "custom", fromMs: T0, toMs: T0 + 2 * HOUR_MS }, groupBy, nowMs, minuteRetentionMs: 30 * DAY_MS });
}

describe("usage report", () => {
  it("stacks each host's share of fleet utilization per minute, over the GPUs that reported", async () => {
    const { utilization, range } = await report(T0 + 2 * HOUR_MS);
    expect(range.source).toBe("minute");
    expect(range.bucketMs).toBe(MINUTE_MS);
    expect(utilization.groups.map((g) => g.label)).toEqual([hostA, hostB]);
    const [a, b] = utilization.groups.map((g) => g.key);
    expect(utilization.points).toHaveLength(120);
    const first = utilization.points[0]!;
    // Shares travel rounded to two decimals.
    expect(first[a!]).toBeCloseTo(100 / 3, 1);
    expect(first[b!]).toBeCloseTo(50 / 3, 1);
    // GPU 1 went offline: the mean is over the two GPUs still reporting, not a zero for the third.
    const later = utilization.points[90]!;
    expect(later[a!]).toBeCloseTo(50, 8);
    expect(later[b!]).toBeCloseTo(25, 8);
  });

  it("groups by model too", async () => {
    const { utilization } = await report(T0 + 2 * HOUR_MS, "model");
    expect(utilization.groups.map((g) => g.label)).toEqual(["NVIDIA A100-SXM4-40GB", "NVIDIA GeForce RTX 4090", "NVIDIA H100 80GB HBM3"]);
    // Each layer says what it is, so that its colour follows from that and not from its place (lib/palette.ts).
    expect(utilization.groups.map((g) => g.id)).toEqual(["model:NVIDIA A100-SXM4-40GB", "model:NVIDIA GeForce RTX 4090", "model:NVIDIA H100 80GB HBM3"]);
  });

  it("draws the heatmap with gaps where a GPU did not report", async () => {
    const { heatmap } = await report(T0 + 2 * HOUR_MS);
    expect(heatmap.columns).toHaveLength(24);
    expect(heatmap.rows.map((r) => `${r.hostName}/${r.gpuIndex}`)).toEqual([`${hostA}/0`, `${hostA}/1`, `${hostB}/0`]);
    const offline = heatmap.rows[1]!.cells;
    expect(offline.slice(0, 12).every((v) => v === 0)).toBe(true);
    expect(offline.slice(12).every((v) => v === null)).toBe(true);
    expect(heatmap.rows[0]!.cells.every((v) => v === 100)).toBe(true);
  });

  for (const [source, nowMs] of [
    ["minute", T0 + 2 * HOUR_MS],
    // Forty days later the minutes are past retention: the same numbers come from the hours.
    ["hour", T0 + 40 * DAY_MS],
  ] as const) {
    it(`sums GPU-hours booked, used and idle per person and per host (${source} rollups)`, async () => {
      const result = await report(nowMs);
      expect(result.range.source).toBe(source);
      const person = result.people.find((p) => p.userId === userId)!;
      expect(person.username).toBe(username);
      expect(person.bookedGpuHours).toBeCloseTo(3, 8);
      expect(person.usedGpuHours).toBeCloseTo(2, 8);
      expect(person.idleBookedGpuHours).toBeCloseTo(1, 8);
      expect(person.efficiencyPct).toBeCloseTo(200 / 3, 8);
      expect(person.gpus).toBe(2);
      const unbooked = result.people.find((p) => p.userId === null)!;
      // The "Not booked" row's used hours are use without a booking: busy hours, the card's figure (it said 1, utilization-weighted, beside a card of 2).
      expect(unbooked.usedGpuHours).toBeCloseTo(2, 8);
      expect(result.people.at(-1)?.userId).toBeNull();

      const a = result.hosts.find((h) => h.hostName === hostA)!;
      expect(a).toMatchObject({ gpus: 2 });
      expect(a.reportedGpuHours).toBeCloseTo(3, 8);
      expect(a.usedGpuHours).toBeCloseTo(2, 8);
      expect(a.meanUtilPct).toBeCloseTo(200 / 3, 8);
      expect(a.bookedGpuHours).toBeCloseTo(3, 8);
      expect(a.idleBookedGpuHours).toBeCloseTo(1, 8);
      expect(result.totals.usedGpuHours).toBeCloseTo(3, 8);
      expect(result.totals.meanUtilPct).toBeCloseTo(60, 8);
      // Use without a booking is busy time (host B's GPU ran a process for 2 hours), the card and the table's column alike.
      expect(result.totals.unbookedUsedGpuHours).toBeCloseTo(2, 8);
      expect(unbooked.usedWithoutBookingGpuHours).toBeCloseTo(2, 8);
      expect(result.includesSimulated).toBe(false);
    });
  }

  it("counts booked GPU-hours from the bookings, as the quotas do, even where their GPUs sent no readings", async () => {
    const silent = await ensureLocalHost(uniqueName("silent"), false);
    const gpu = makeGpu({ index: 0 });
    await recordHostInventory(silent.id, { name: silent.name, driverVersion: null, cudaVersion: null }, [gpu], new Date(T0));
    const quiet = uniqueName("quiet");
    const quietId = (await db().user.create({ data: { id: randomUUID(), name: "Quiet Person", email: `${quiet}@example.test`, username: quiet } })).id;
    const { id: gpuId } = await db().gpu.findFirstOrThrow({ where: { uuid: gpu.uuid }, select: { id: true } });
    // 90 minutes booked inside the range, and an hour after it that the report leaves out.
    const startsAt = new Date(T0 + 30 * MINUTE_MS);
    const endsAt = new Date(T0 + 3 * HOUR_MS);
    await db().reservation.create({ data: { userId: quietId, hostId: silent.id, startsAt, endsAt, purpose: "no readings", gpus: { create: [{ gpuId, startsAt, endsAt }] } } });

    const result = await report(T0 + 2 * HOUR_MS);
    const person = result.people.find((p) => p.userId === quietId)!;
    // No readings: its booked hours are unknown, not idle and not unused.
    expect(person).toMatchObject({ label: "Quiet Person", usedGpuHours: 0, idleBookedGpuHours: 0, gpus: 0, efficiencyPct: null });
    expect(person.unknownGpuHours).toBeCloseTo(1.5, 8);
    expect(person.bookedGpuHours).toBeCloseTo(gpuHoursOf(await bookedRanges(db(), { userId: quietId }, T0, T0 + 2 * HOUR_MS), T0, T0 + 2 * HOUR_MS), 8);
    expect(person.bookedGpuHours).toBeCloseTo(1.5, 8);
    // The hosts table counts the same bookings: the silent host is listed, and both tables sum to one figure.
    expect(result.hosts.find((h) => h.hostName === silent.name)).toMatchObject({ gpus: 0, reportedGpuHours: 0 });
    expect(result.hosts.find((h) => h.hostName === silent.name)!.bookedGpuHours).toBeCloseTo(1.5, 8);
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    expect(sum(result.hosts.map((h) => h.bookedGpuHours))).toBeCloseTo(sum(result.people.map((p) => p.bookedGpuHours)), 8);
    await db().reservationGpu.deleteMany({ where: { reservation: { userId: quietId } } });
    await db().reservation.deleteMany({ where: { userId: quietId } });
  });

  it("shows a member only the GPU time they booked", async () => {
    const mine = await getUsageReport({
      range: { choice: "custom", fromMs: T0, toMs: T0 + 2 * HOUR_MS },
      groupBy: "host",
      userId,
      nowMs: T0 + 2 * HOUR_MS,
      minuteRetentionMs: 30 * DAY_MS,
    });
    expect(mine.people.map((p) => p.userId)).toEqual([userId]);
    expect(mine.hosts.map((h) => h.hostName)).toEqual([hostA]);
    expect(mine.heatmap.rows).toHaveLength(2);
  });

  it("exports the tables as CSV, one row per person or host", async () => {
    const result = await report(T0 + 2 * HOUR_MS);
    const people = toCsv("people", result.people, result.hosts).trimEnd().split("\r\n");
    expect(people[0]).toBe("person,username,booked_gpu_hours,used_gpu_hours,efficiency_pct,idle_booked_gpu_hours,gpus,simulated,used_without_booking_gpu_hours,unknown_booked_gpu_hours,handed_back_gpu_hours");
    expect(people).toContain(`Usage Person,${username},3,2,66.67,1,2,no,0,0,0`);
    expect(people).toContain("Not booked,,0,2,,0,1,no,2,0,0");
    const hosts = toCsv("hosts", result.people, result.hosts).trimEnd().split("\r\n");
    expect(hosts).toHaveLength(3);
    expect(hosts[1]).toBe(`${hostA},2,3,2,66.67,3,1,3,0,0`);
  });

  it("quotes CSV fields and defuses spreadsheet formulas", () => {
    const csv = toCsv(
      "people",
      [{ userId: "x", label: '=HYPERLINK("x"), evil', username: "a,b", simulated: false, bookedGpuHours: 1, usedGpuHours: 0.5, idleBookedGpuHours: 0, unknownGpuHours: 0, efficiencyPct: 50, gpus: 1, handedBackGpuHours: 0.25, handedBackReleases: 1 }],
      [],
    );
    expect(csv.split("\r\n")[1]).toBe(`"'=HYPERLINK(""x""), evil","a,b",1,0.5,50,0,1,no,,0,0.25`);
  });
});
