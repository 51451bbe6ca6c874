import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/core/db";
import { HOUR_MS, MINUTE_MS, type MinuteRow } from "@/server/minutes/minute-row";
import { recomputeHours, upsertMinuteRows } from "@/server/history/rollup-store";
import { getUsageReport } from "@/server/history/usage-report";
import { ensureLocalHost, recordHostInventory } from "@/server/hosts/host-registry";
import { makeGpu, uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * A host with a whole H100 and an H100 that is split in the second hour
 * into 3g.40gb + 2g.20gb + 1g.10gb + 1g.10gb (the real recording's
 * layout). Its GPU-hours of capacity are those of two GPUs throughout:
 * the parent's own rows count before the split and not while its slices
 * report; the slices count their share (3/7, 2/7, 1/7, 1/7).
 *
 *   whole GPU:  120 min, 50 %, not booked
 *   parent:      60 min whole (50 %), then 60 min split (no utilization under MIG)
 *   3g.40gb:     60 min, 0 %, booked by the person (idle)
 *   2g.20gb:     60 min, 0 %, not booked
 *   1g.10gb × 2: 60 min, 100 %, not booked
 */
const T0 = Date.UTC(2026, 9, 7, 8, 0, 0);
const DAY_MS = 24 * HOUR_MS;
const PROFILES = ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"];
let hostId: string;
let userId: string;

function minutes(gpuUuid: string, fromMinute: number, count: number, row: Partial<MinuteRow>): MinuteRow[] {
  return Array.from({ length: count }, (_, i) => ({
    gpuUuid,
    minute: new Date(T0 + (fromMinute + i) * MINUTE_MS),
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
    busy: false,
    simulated: false,
    ...row,
  }));
}

beforeAll(async () => {
  await useTestDatabase();
  const host = await ensureLocalHost(uniqueName("mig"), false);
  hostId = host.id;
  const parent = makeGpu({ index: 0, migMode: "Enabled", utilizationGpuPct: null });
  const slices = PROFILES.map((profile, deviceIndex) =>
    makeGpu({ index: 0, uuid: `MIG-${randomUUID()}`, migMode: "Enabled", utilizationGpuPct: null, mig: { parentUuid: parent.uuid, profile, gpuInstanceId: deviceIndex + 1, computeInstanceId: 0, deviceIndex } }),
  );
  const whole = makeGpu({ index: 1 });
  await recordHostInventory(host.id, { name: host.name, driverVersion: null, cudaVersion: null }, [parent, ...slices, whole], new Date(T0));
  userId = (await db().user.create({ data: { id: randomUUID(), name: "Slice Person", email: `${uniqueName("slice")}@example.test`, username: uniqueName("slice") } })).id;
  const sliceId = (await db().gpu.findFirstOrThrow({ where: { uuid: slices[0]!.uuid }, select: { id: true } })).id;
  const startsAt = new Date(T0 + HOUR_MS);
  const endsAt = new Date(T0 + 2 * HOUR_MS);
  await db().reservation.create({ data: { userId, hostId, startsAt, endsAt, purpose: "slice", gpus: { create: [{ gpuId: sliceId, startsAt, endsAt }] } } });
  await upsertMinuteRows(db(), [
    ...minutes(whole.uuid, 0, 120, { utilAvg: 50, utilMax: 50 }),
    ...minutes(parent.uuid, 0, 60, { utilAvg: 50, utilMax: 50 }),
    ...minutes(parent.uuid, 60, 60, { utilAvg: null, utilMax: null, memUsedAvg: 4000 }),
    ...minutes(slices[0]!.uuid, 60, 60, { utilAvg: 0, bookedByUserId: userId }),
    ...minutes(slices[1]!.uuid, 60, 60, { utilAvg: 0 }),
    ...minutes(slices[2]!.uuid, 60, 60, { utilAvg: 100, utilMax: 100, busy: true }),
    ...minutes(slices[3]!.uuid, 60, 60, { utilAvg: 100, utilMax: 100, busy: true }),
  ]);
  await recomputeHours(db(), [T0, T0 + HOUR_MS]);
}, 60_000);

describe("usage report with a GPU split into MIG slices", () => {
  for (const [source, nowMs] of [
    ["minute", T0 + 2 * HOUR_MS],
    ["hour", T0 + 40 * DAY_MS],
  ] as const) {
    it(`counts the split H100 as one GPU of capacity and its slices by their share (${source} rollups)`, async () => {
      const report = await getUsageReport({ range: { choice: "custom", fromMs: T0, toMs: T0 + 2 * HOUR_MS }, groupBy: "host", nowMs, minuteRetentionMs: 30 * DAY_MS });
      expect(report.range.source).toBe(source);
      const host = report.hosts.find((h) => h.hostId === hostId)!;
      // Two GPUs for two hours, not 2 + 2 + 4 units' worth; and two GPUs, not six units.
      expect(host.gpus).toBe(2);
      expect(host.reportedGpuHours).toBeCloseTo(4, 8);
      // Whole 0.5 × 2 h, parent 0.5 × 1 h before the split, the two 1g slices 1/7 each for an hour.
      expect(host.usedGpuHours).toBeCloseTo(1 + 0.5 + 2 / 7, 8);
      expect(host.busyGpuHours).toBeCloseTo(2 / 7, 8);
      // The 3g.40gb slice, booked and idle for an hour: 3/7 of a GPU-hour booked, all of it idle.
      expect(host.bookedGpuHours).toBeCloseTo(3 / 7, 8);
      expect(host.idleBookedGpuHours).toBeCloseTo(3 / 7, 8);
      const person = report.people.find((p) => p.userId === userId)!;
      expect(person.bookedGpuHours).toBeCloseTo(3 / 7, 8);
      expect(person.idleBookedGpuHours).toBeCloseTo(3 / 7, 8);
      expect(person.gpus).toBe(1);
      expect(report.totals.reportedGpuHours).toBeCloseTo(4, 8);
    });
  }
});

describe("usage of MIG slices as nvidia-smi reads them (no utilization per slice)", () => {
  /**
   * An H100 split 4g.40gb + 3g.40gb for one hour, both booked by one person:
   * a process on the 4g.40gb for 30 minutes, nothing on the 3g.40gb. Slice
   * readings carry no utilization, as the real recordings do.
   */
  it("counts booked hours by share, used by process presence, the rest idle; the heatmap has a labelled 'not reported' row per slice", async () => {
    const start = T0 + 10 * HOUR_MS;
    const host = await ensureLocalHost(uniqueName("mig-presence"), false);
    const parent = makeGpu({ index: 0, migMode: "Enabled", utilizationGpuPct: null });
    const slices = ["4g.40gb", "3g.40gb"].map((profile, deviceIndex) =>
      makeGpu({ index: 0, uuid: `MIG-${randomUUID()}`, migMode: "Enabled", utilizationGpuPct: null, mig: { parentUuid: parent.uuid, profile, gpuInstanceId: deviceIndex + 1, computeInstanceId: 0, deviceIndex } }),
    );
    await recordHostInventory(host.id, { name: host.name, driverVersion: null, cudaVersion: null }, [parent, ...slices], new Date(start));
    const person = (await db().user.create({ data: { id: randomUUID(), name: "Presence Person", email: `${uniqueName("presence")}@example.test`, username: uniqueName("presence") } })).id;
    const ids = await db().gpu.findMany({ where: { uuid: { in: slices.map((slice) => slice.uuid) } }, select: { id: true } });
    await db().reservation.create({ data: { userId: person, hostId: host.id, startsAt: new Date(start), endsAt: new Date(start + HOUR_MS), purpose: "slices", gpus: { create: ids.map((row) => ({ gpuId: row.id, startsAt: new Date(start), endsAt: new Date(start + HOUR_MS) })) } } });
    const none = { utilAvg: null, utilMax: null, bookedByUserId: person, memTotal: 40448 };
    const saved = hostId;
    hostId = host.id;
    await upsertMinuteRows(db(), [
      ...minutes(parent.uuid, 600, 60, { utilAvg: null, utilMax: null, memUsedAvg: 16_942 }),
      ...minutes(slices[0]!.uuid, 600, 30, { ...none, memUsedAvg: 16_925, memUsedMax: 16_925, busy: true }),
      ...minutes(slices[0]!.uuid, 630, 30, { ...none, memUsedAvg: 17, memUsedMax: 17 }),
      ...minutes(slices[1]!.uuid, 600, 60, { ...none, memUsedAvg: 17, memUsedMax: 17 }),
    ]);
    hostId = saved;
    const report = await getUsageReport({ range: { choice: "custom", fromMs: start, toMs: start + HOUR_MS }, groupBy: "host", nowMs: start + HOUR_MS, minuteRetentionMs: 30 * DAY_MS });
    const mine = report.people.find((p) => p.userId === person)!;
    // One GPU-hour booked (4/7 + 3/7); used: half an hour of the 4g.40gb (2/7); idle: the rest (5/7).
    expect(mine.bookedGpuHours).toBeCloseTo(1, 8);
    expect(mine.usedGpuHours).toBeCloseTo(2 / 7, 8);
    expect(mine.idleBookedGpuHours).toBeCloseTo(5 / 7, 8);
    const row = report.hosts.find((h) => h.hostId === host.id)!;
    expect(row.usedGpuHours).toBeCloseTo(2 / 7, 8);
    // No utilization was read there: the mean is unknown, not 0 % and not inflated by presence.
    expect(row.meanUtilPct).toBeNull();
    const heat = report.heatmap.rows.filter((r) => r.hostName === host.name);
    expect(heat.map((r) => [r.unit, r.utilizationReported])).toEqual([
      ["GPU 0", false],
      ["GPU 0:0 (4g.40gb)", false],
      ["GPU 0:1 (3g.40gb)", false],
    ]);
    expect(heat[1]!.cells.every((cell) => cell === null)).toBe(true);
  });
});
