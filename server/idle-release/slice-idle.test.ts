import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { GpuSample } from "@/lib/domain/snapshot";
import { hasSharedFixtures, readSharedFixture } from "@/host/collector/nvidia-smi/test-fixtures";
import { NO_READINGS } from "@/server/testing/factories";
import type { MinuteRow } from "@/server/minutes/minute-row";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Idle release of MIG slices, on the real recording of an H100 split into
 * seven 1g.10gb slices (`nvidia-smi -L`, 8×H100), with the memory the real
 * H200 MIG capture reads per MIG device: 17 MiB on an idle slice, 16,925 MiB
 * under a job. nvidia-smi reports no utilization per MIG device, so a slice
 * is idle by process presence and memory (server/bookings/rules/idle-rule.ts).
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let fx: Fixtures;
let db: typeof import("@/server/core/db").db;
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let getBooking: typeof import("@/server/bookings/views/list-bookings").getBooking;
let runIdlePass: typeof import("@/server/idle-release/idle-runner").runIdlePass;
let onIdleNotice: typeof import("@/server/idle-release/notify-idle").onIdleNotice;
let updatePolicy: typeof import("@/server/bookings/rules/policy").updatePolicy;
let addIdleExemption: typeof import("@/server/idle-release/idle-exemptions").addIdleExemption;
let recordHostInventory: typeof import("@/server/hosts/host-registry").recordHostInventory;
let ensureLocalHost: typeof import("@/server/hosts/host-registry").ensureLocalHost;
let parseNvidiaSmiList: typeof import("@/host/collector/nvidia-smi/parse-list").parseNvidiaSmiList;
let withSlices: typeof import("@/host/collector/nvidia-smi/mig-slices").withSlices;
let factories: typeof import("@/server/testing/factories");

const NOW = new Date("2026-12-01T10:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
const IDLE_MIB = 17;
const JOB_MIB = 16_925;

beforeAll(async () => {
  await useTestDatabase();
  fx = await import("@/server/testing/booking-fixtures");
  factories = await import("@/server/testing/factories");
  ({ db } = await import("@/server/core/db"));
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ getBooking } = await import("@/server/bookings/views/list-bookings"));
  ({ runIdlePass } = await import("@/server/idle-release/idle-runner"));
  ({ onIdleNotice } = await import("@/server/idle-release/notify-idle"));
  ({ updatePolicy } = await import("@/server/bookings/rules/policy"));
  ({ addIdleExemption } = await import("@/server/idle-release/idle-exemptions"));
  ({ recordHostInventory, ensureLocalHost } = await import("@/server/hosts/host-registry"));
  ({ parseNvidiaSmiList } = await import("@/host/collector/nvidia-smi/parse-list"));
  ({ withSlices } = await import("@/host/collector/nvidia-smi/mig-slices"));
}, 120_000);

let admin: Awaited<ReturnType<Fixtures["createTestUser"]>>;
beforeEach(async () => {
  admin ??= await fx.createTestUser("admin", "sliceidleadmin");
  await updatePolicy(admin, { maxDurationMinutes: 7 * 24 * 60, maxGpusPerUser: 8, maxAdvanceDays: 30, idleReleaseAfterMinutes: 120, idleWarningMinutes: 30, idleBelowPct: 5, idleKeepsPerBooking: 1, idleReportOnly: false });
});

/** GPU `gpuIndex` of the recorded 8×H100 (seven 1g.10gb slices each), as the agent reports it, under a host of its own. */
async function sevenSliceHost(gpuIndex: number) {
  const listed = parseNvidiaSmiList(readSharedFixture("list/utkuozdemir__list_gpus__8xH100-MIG-7x1g.10gb.txt")).filter((gpu) => gpu.index === gpuIndex);
  const parents: GpuSample[] = listed.map((gpu) => factories.makeGpu({ index: gpu.index, uuid: gpu.uuid, name: gpu.name, migMode: "Enabled", utilizationGpuPct: null }));
  const units = withSlices(parents, { gpus: listed.map((gpu) => ({ uuid: gpu.uuid, listed: gpu, migDevices: [], processes: [] })) });
  const name = factories.uniqueName("h100-7x1g");
  const host = await ensureLocalHost(name, true);
  await recordHostInventory(host.id, { name, driverVersion: "570.86.15", cudaVersion: "12.8" }, units, NOW);
  return { id: host.id, name, slices: units.filter((unit) => unit.mig) };
}

/** Stored minutes of a slice for [from, to) after NOW: no utilization (none per MIG device), its memory, and whether a process ran. */
async function storeSliceMinutes(hostId: string, uuid: string, from: number, to: number, reading: { memUsedMax: number; busy: boolean }): Promise<void> {
  const data: MinuteRow[] = [];
  for (let minute = from; minute < to; minute += 1) {
    data.push(factories.makeMinuteRow(uuid, hostId, at(minute).getTime(), { ...NO_READINGS, samples: 12, memUsedAvg: reading.memUsedMax, memUsedMax: reading.memUsedMax, memTotal: 9984, busy: reading.busy }));
  }
  const { upsertMinuteRows } = await import("@/server/history/rollup-store");
  await upsertMinuteRows(db(), data);
}

const pass = (minutes: number) => runIdlePass({ liveGpus: () => [], alertHoldMinutes: 30 }, at(minutes).getTime());

describe.skipIf(!hasSharedFixtures)("idle release of MIG slices (recorded 7×1g.10gb H100)", () => {
  it("an empty slice is warned at 90 idle minutes and released at 120 across a restart; a slice with a process is kept", async () => {
    const host = await sevenSliceHost(0);
    expect(host.slices.map((slice) => slice.mig!.profile)).toEqual(Array(7).fill("1g.10gb"));
    const [idleBooker, busyBooker] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const idle = await createBooking(idleBooker, { host: host.name, slices: ["0:3"], durationMinutes: 8 * 60, purpose: "idle slice" }, { now: NOW });
    const busy = await createBooking(busyBooker, { host: host.name, slices: ["0:5"], durationMinutes: 8 * 60, purpose: "busy slice" }, { now: NOW });
    await storeSliceMinutes(host.id, host.slices[3]!.uuid, 0, 150, { memUsedMax: IDLE_MIB, busy: false });
    await storeSliceMinutes(host.id, host.slices[5]!.uuid, 0, 150, { memUsedMax: JOB_MIB, busy: true });

    const notices: string[] = [];
    const stop = onIdleNotice((notice) => [idle.id, busy.id].includes(notice.reservationId) && notices.push(`${notice.event} ${notice.reservationId === idle.id ? "idle" : "busy"}`));
    try {
      await pass(60);
      expect((await getBooking(idleBooker, idle.id, at(60))).idle).toMatchObject({ phase: "idle", idleSince: NOW.toISOString(), idleMinutes: 60 });
      await pass(90);
      expect(notices).toEqual(["reservation.idle_warning idle"]);
      // "The server restarts": a pass keeps nothing in memory; the clock is the stored minutes, the warning's claim the row.
      await pass(100);
      expect(notices).toEqual(["reservation.idle_warning idle"]);
      await pass(120);
      expect(notices).toEqual(["reservation.idle_warning idle", "reservation.idle_released idle"]);
    } finally {
      stop();
    }
    expect(await getBooking(idleBooker, idle.id, at(121))).toMatchObject({ state: "released", releasedBecause: "idle", endsAt: at(120).toISOString() });
    const kept = await getBooking(busyBooker, busy.id, at(121));
    expect(kept).toMatchObject({ state: "active", idle: null });
  });

  it("memory held with no process listed keeps a slice; report-only and exemptions apply as to a GPU", async () => {
    const host = await sevenSliceHost(1);
    const [a, b, c] = await Promise.all([fx.createTestUser(), fx.createTestUser(), fx.createTestUser()]);
    const unseen = await createBooking(a, { host: host.name, slices: ["1:0"], durationMinutes: 8 * 60, purpose: "unseen job" }, { now: NOW });
    const exempt = await createBooking(b, { host: host.name, slices: ["1:1"], durationMinutes: 8 * 60, purpose: "exempt" }, { now: NOW });
    const reported = await createBooking(c, { host: host.name, slices: ["1:2"], durationMinutes: 8 * 60, purpose: "report only" }, { now: NOW });
    await storeSliceMinutes(host.id, host.slices[0]!.uuid, 0, 150, { memUsedMax: JOB_MIB, busy: false });
    for (const slice of [host.slices[1]!, host.slices[2]!]) await storeSliceMinutes(host.id, slice.uuid, 0, 150, { memUsedMax: IDLE_MIB, busy: false });
    await addIdleExemption(admin, { kind: "booking", subject: exempt.id, reason: "interactive notebook" });
    await updatePolicy(admin, { maxDurationMinutes: 7 * 24 * 60, maxGpusPerUser: 8, maxAdvanceDays: 30, idleReportOnly: true });

    // Warned first (the pass at 120), reported once the full warning time has passed.
    await pass(120);
    await pass(150);
    const states = await Promise.all([getBooking(a, unseen.id, at(150)), getBooking(b, exempt.id, at(150)), getBooking(c, reported.id, at(150))]);
    expect(states.map((view) => view.state)).toEqual(["active", "active", "active"]);
    expect(states[0]!.idle).toBeNull();
    expect(states[1]!.idle).toMatchObject({ exempt: true, releaseAt: null });
    expect(await db().idleRelease.count({ where: { reservationId: reported.id, reportOnly: true } })).toBe(1);
    expect(await db().idleRelease.count({ where: { reservationId: { in: [unseen.id, exempt.id] } } })).toBe(0);
  });
});
