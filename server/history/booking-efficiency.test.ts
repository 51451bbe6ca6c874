import { randomUUID } from "node:crypto";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db } from "@/server/core/db";
import { bookingEfficiency, bookingEfficiencyFor } from "@/server/history/booking-efficiency";
import { HOUR_MS, MINUTE_MS, type MinuteRow } from "@/server/minutes/minute-row";
import { recomputeHours, upsertMinuteRows } from "@/server/history/rollup-store";
import { ensureLocalHost, recordHostInventory } from "@/server/hosts/host-registry";
import { makeGpu, uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

const T0 = Date.UTC(2026, 8, 1, 0, 0, 0);
let ownerId: string;
let otherId: string;
let hostId: string;
let gpuIds: string[];
let uuids: string[];

beforeAll(async () => {
  await useTestDatabase();
  const host = await ensureLocalHost(uniqueName("eff"), false);
  hostId = host.id;
  const gpus = [makeGpu({ index: 0 }), makeGpu({ index: 1 })];
  await recordHostInventory(host.id, { name: host.name, driverVersion: null, cudaVersion: null }, gpus, new Date(T0));
  uuids = gpus.map((g) => g.uuid);
  gpuIds = await Promise.all(uuids.map(async (uuid) => (await db().gpu.findUniqueOrThrow({ where: { uuid }, select: { id: true } })).id));
  const person = async (name: string) => (await db().user.create({ data: { id: randomUUID(), name, email: `${uniqueName(name)}@example.test`, username: uniqueName(name) } })).id;
  ownerId = await person("owner");
  otherId = await person("other");
  // GPU 0 at 80 % and GPU 1 at 20 % for the first hour; GPU 1 offline afterwards.
  const row = (gpuUuid: string, i: number, utilAvg: number): MinuteRow => ({
    gpuUuid, minute: new Date(T0 + i * MINUTE_MS), hostId, samples: 60, utilAvg, utilMax: utilAvg, memUsedAvg: 1, memUsedMax: 1, memTotal: 10,
    powerAvg: 1, tempAvg: 1, tempMax: 1, bookedByUserId: null, busy: true, simulated: false,
  });
  await upsertMinuteRows(db(), [
    ...Array.from({ length: 120 }, (_, i) => row(uuids[0]!, i, 80)),
    ...Array.from({ length: 60 }, (_, i) => row(uuids[1]!, i, 20)),
  ]);
  await recomputeHours(db(), [T0, T0 + HOUR_MS]);
}, 60_000);

async function book(userId: string, gpuIndexes: number[], startMs: number, endMs: number): Promise<string> {
  const startsAt = new Date(startMs);
  const endsAt = new Date(endMs);
  const booking = await db().reservation.create({
    data: { userId, hostId, startsAt, endsAt, purpose: "efficiency", gpus: { create: gpuIndexes.map((i) => ({ gpuId: gpuIds[i]!, startsAt, endsAt })) } },
    select: { id: true },
  });
  return booking.id;
}

describe("booking efficiency", () => {
  // Each test books the same GPUs and hours; a GPU is never booked twice at once
  // (PostgreSQL's exclusion constraint refuses it even here), so each starts afresh.
  beforeEach(async () => {
    await db().reservation.deleteMany({ where: { hostId } });
  });

  it("is the mean utilization of the booked GPUs over the booking's minutes with readings", async () => {
    const both = await book(ownerId, [0, 1], T0, T0 + 2 * HOUR_MS);
    const future = await book(ownerId, [1], T0 + 10 * HOUR_MS, T0 + 11 * HOUR_MS);
    const result = await bookingEfficiency([both, future]);
    // 120 minutes at 80 % and 60 at 20 %: (120 × 80 + 60 × 20) / 180.
    expect(result.get(both)).toEqual({ reservationId: both, meanUtilPct: 60, coveredGpuMinutes: 180 });
    expect(result.get(future)).toEqual({ reservationId: future, meanUtilPct: null, coveredGpuMinutes: 0 });

    await db().reservation.delete({ where: { id: both } });
    const second = await book(ownerId, [0], T0 + HOUR_MS, T0 + HOUR_MS + 30 * MINUTE_MS);
    expect((await bookingEfficiency([second])).get(second)).toEqual({ reservationId: second, meanUtilPct: 80, coveredGpuMinutes: 30 });
  });

  it("counts each booking only its own minutes where bookings share a GPU-hour, in one page of bookings and across pages", async () => {
    // 30 back-to-back bookings of 2 minutes on GPU 0 (more than one read's worth), then one of GPU 1's last half hour.
    const slots = await Promise.all(Array.from({ length: 30 }, (_, i) => book(ownerId, [0], T0 + i * 2 * MINUTE_MS, T0 + (i + 1) * 2 * MINUTE_MS)));
    const late = await book(ownerId, [1], T0 + 30 * MINUTE_MS, T0 + HOUR_MS);
    const result = await bookingEfficiency([...slots, late]);
    for (const id of slots) expect(result.get(id)).toEqual({ reservationId: id, meanUtilPct: 80, coveredGpuMinutes: 2 });
    expect(result.get(late)).toEqual({ reservationId: late, meanUtilPct: 20, coveredGpuMinutes: 30 });
  });

  it("falls back to the hourly rollups once the minutes are pruned", async () => {
    const id = await book(ownerId, [0, 1], T0, T0 + 2 * HOUR_MS);
    await db().gpuMinuteBlock.deleteMany({ where: { gpuUuid: { in: uuids } } });
    const result = await bookingEfficiency([id]);
    expect(result.get(id)?.meanUtilPct).toBeCloseTo(60, 8);
    expect(result.get(id)?.coveredGpuMinutes).toBe(180);
  });

  it("shows a member only their own bookings, and an admin any", async () => {
    const mine = await book(ownerId, [0], T0, T0 + HOUR_MS);
    const theirs = await book(otherId, [0], T0 + HOUR_MS, T0 + 2 * HOUR_MS);
    const asOwner = await bookingEfficiencyFor({ id: ownerId, role: "member" }, [mine, theirs]);
    expect(asOwner.map((e) => e.reservationId)).toEqual([mine]);
    const asAdmin = await bookingEfficiencyFor({ id: randomUUID(), role: "admin" }, [mine, theirs]);
    expect(asAdmin.map((e) => e.reservationId).sort()).toEqual([mine, theirs].sort());
  });
});
