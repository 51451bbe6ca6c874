import { beforeAll, describe, expect, it } from "vitest";
import type { QuotaExceededError } from "@/server/bookings/rules/check-limits";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * A MIG slice counts its share of a GPU in GPU-hours (lib/domain/gpu-share.ts),
 * on SQLite and PostgreSQL: the quota, the booked ranges behind fair share
 * and the report, and the refusal's numbers.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let recordHostInventory: typeof import("@/server/hosts/host-registry").recordHostInventory;
let ensureLocalHost: typeof import("@/server/hosts/host-registry").ensureLocalHost;
let bookedRanges: typeof import("@/server/bookings/rules/booked-ranges").bookedRanges;
let gpuHoursOf: typeof import("@/server/bookings/rules/gpu-hours").gpuHoursOf;
let teams: typeof import("@/server/teams/team-service");
let db: typeof import("@/server/core/db").db;
let fx: Fixtures;
let factories: typeof import("@/server/testing/factories");
let handedBackTimes: typeof import("@/server/history/handed-back").handedBackTimes;

const NOW = new Date("2026-11-30T10:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000).toISOString();

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ recordHostInventory, ensureLocalHost } = await import("@/server/hosts/host-registry"));
  ({ bookedRanges } = await import("@/server/bookings/rules/booked-ranges"));
  ({ gpuHoursOf } = await import("@/server/bookings/rules/gpu-hours"));
  teams = await import("@/server/teams/team-service");
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
  factories = await import("@/server/testing/factories");
  ({ handedBackTimes } = await import("@/server/history/handed-back"));
}, 120_000);

/** GPU 0 an H100 split into 7 × 1g.10gb (the 8 × H100 recording's layout), GPU 1 a whole H100. */
async function sevenSliceHost(): Promise<string> {
  const name = factories.uniqueName("mig7");
  const host = await ensureLocalHost(name, true);
  const parent = factories.makeGpu({ index: 0, name: "NVIDIA H100 80GB HBM3", migMode: "Enabled", memoryTotalMiB: 81559, utilizationGpuPct: null });
  const slices = Array.from({ length: 7 }, (_, deviceIndex) =>
    factories.makeGpu({
      index: 0,
      name: "NVIDIA H100 80GB HBM3",
      uuid: `MIG-${factories.gpuUuid().slice(4)}`,
      memoryTotalMiB: 9984,
      utilizationGpuPct: null,
      migMode: "Enabled",
      mig: { parentUuid: parent.uuid, profile: "1g.10gb", gpuInstanceId: 7 + deviceIndex, computeInstanceId: 0, deviceIndex },
    }),
  );
  const whole = factories.makeGpu({ index: 1, name: "NVIDIA H100 80GB HBM3" });
  await recordHostInventory(host.id, { name, driverVersion: "590.48.01", cudaVersion: "13.1" }, [parent, ...slices, whole], NOW);
  return name;
}

describe("MIG slices and GPU-hours", () => {
  it("with 1 GPU-hour per 7 days, four 1g.10gb slices for an hour fit (4/7), a whole GPU for an hour then does not, and the last three slices fill the GPU-hour", async () => {
    const host = await sevenSliceHost();
    const admin = await fx.createTestUser("admin");
    const person = await fx.createTestUser();
    const team = await teams.createTeam(admin, { name: factories.uniqueName("team"), limits: { gpuHoursPer7Days: 1 } });
    await teams.addTeamMember(admin, team.id, { username: person.username });

    // Counted as one GPU-hour each before, the four slices asked for 4 GPU-hours.
    await createBooking(person, { host, slices: ["0:0", "0:1", "0:2", "0:3"], startsAt: at(0), durationMinutes: 60, purpose: "four slices" }, { now: NOW });
    const ranges = await bookedRanges(db(), { userId: person.id }, NOW.getTime(), NOW.getTime() + 3_600_000);
    expect(ranges.map((range) => range.gpus)).toEqual([1 / 7, 1 / 7, 1 / 7, 1 / 7]);
    expect(gpuHoursOf(ranges, NOW.getTime(), NOW.getTime() + 3_600_000)).toBeCloseTo(4 / 7, 12);

    const whole = await fx.refusal(createBooking(person, { host, gpus: [1], startsAt: at(120), durationMinutes: 60, purpose: "whole" }, { now: NOW }));
    expect(whole.message).toMatch(new RegExp(`^${team.name}: 0.6 of 1 GPU-hours booked in 7 days \\(this booking adds 1\\)`));
    expect((whole as QuotaExceededError).quota).toMatchObject({ limit: "gpuHoursPer7Days", used: 0.6, max: 1, requested: 1 });

    await createBooking(person, { host, slices: ["0:4", "0:5", "0:6"], startsAt: at(120), durationMinutes: 60, purpose: "three more" }, { now: NOW });
    const full = await fx.refusal(createBooking(person, { host, slices: ["0:0"], startsAt: at(240), durationMinutes: 60, purpose: "one more" }, { now: NOW }));
    expect((full as QuotaExceededError).quota).toMatchObject({ limit: "gpuHoursPer7Days", used: 1, max: 1, requested: 0.1 });
  });

  it("what idle release hands back of two 1g.10gb slices counts 2/7 GPU an hour, as the quota counted them", async () => {
    const host = await sevenSliceHost();
    const person = await fx.createTestUser();
    const booking = await createBooking(person, { host, slices: ["0:0", "0:1"], startsAt: at(0), durationMinutes: 240, purpose: "idle slices" }, { now: NOW });
    const hostId = (await db().host.findUniqueOrThrow({ where: { name: host } })).id;
    // Released an hour in, three hours before its end: 2 slices × 1/7 × 3 h.
    const released = new Date(NOW.getTime() + 60 * 60_000);
    await db().idleRelease.create({
      data: { reservationId: booking.id, userId: person.id, hostId, gpuCount: 2, idleSince: NOW, at: released, scheduledEndAt: new Date(NOW.getTime() + 240 * 60_000) },
    });
    const handed = await handedBackTimes(released.getTime(), released.getTime() + 1);
    expect(handed).toHaveLength(1);
    expect(handed[0]).toMatchObject({ bookedBy: person.id, host: hostId, releases: 1 });
    expect(handed[0]!.gpuHours).toBeCloseTo((2 / 7) * 3, 12);
  });
});
