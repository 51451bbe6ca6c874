import { beforeAll, describe, expect, it } from "vitest";
import type { AlertUpdate } from "@/lib/domain/alerts";
import type { GpuSample } from "@/lib/domain/snapshot";
import { useTestDatabase } from "@/server/testing/test-db";

let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let listBookings: typeof import("@/server/bookings/views/list-bookings").listBookings;
let recordHostInventory: typeof import("@/server/hosts/host-registry").recordHostInventory;
let recordHostsSeen: typeof import("@/server/hosts/host-registry").recordHostsSeen;
let ensureLocalHost: typeof import("@/server/hosts/host-registry").ensureLocalHost;
let tellBookersOfLostUnit: typeof import("@/server/notifications/booking-notices").tellBookersOfLostUnit;
let tellBookersOfGoneUnits: typeof import("@/server/notifications/booking-notices").tellBookersOfGoneUnits;
let onPersonNotice: typeof import("@/server/notifications/notify-person").onPersonNotice;
let db: typeof import("@/server/core/db").db;
let fx: typeof import("@/server/testing/booking-fixtures");
let factories: typeof import("@/server/testing/factories");

const NOW = new Date("2026-12-01T10:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ listBookings } = await import("@/server/bookings/views/list-bookings"));
  ({ recordHostInventory, recordHostsSeen, ensureLocalHost } = await import("@/server/hosts/host-registry"));
  ({ tellBookersOfLostUnit, tellBookersOfGoneUnits } = await import("@/server/notifications/booking-notices"));
  ({ onPersonNotice } = await import("@/server/notifications/notify-person"));
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
  factories = await import("@/server/testing/factories");
}, 60_000);

const INFO = { driverVersion: "590.48.01", cudaVersion: "13.1" };

/** An H100 split 3g.40gb + 2g.20gb + 1g.10gb + 1g.10gb, recorded at NOW; `report` records the host again with the slices it names. */
async function migHost() {
  const name = factories.uniqueName("gone");
  const host = await ensureLocalHost(name, true);
  const parent = factories.makeGpu({ index: 0, migMode: "Enabled", memoryTotalMiB: 81559, utilizationGpuPct: null });
  const profiles = ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"];
  const slices: GpuSample[] = profiles.map((profile, deviceIndex) =>
    factories.makeGpu({
      index: 0,
      uuid: `MIG-${factories.gpuUuid().slice(4)}`,
      memoryTotalMiB: 9984,
      memoryUsedMiB: 9,
      utilizationGpuPct: null,
      migMode: "Enabled",
      mig: { parentUuid: parent.uuid, profile, gpuInstanceId: deviceIndex + 2, computeInstanceId: 0, deviceIndex },
    }),
  );
  const report = (devices: number[], seenAt: Date) => recordHostInventory(host.id, { name, ...INFO }, [parent, ...devices.map((i) => slices[i]!)], seenAt);
  await report([0, 1, 2, 3], NOW);
  return { id: host.id, name, parent, slices, report };
}

describe("a booking of a slice that disappeared", () => {
  it("is flagged to its booker from the stored inventory, tells every booker once, and clears when the slice is back", async () => {
    const host = await migHost();
    const [alice, bob, carol] = await Promise.all([fx.createTestUser(), fx.createTestUser(), fx.createTestUser()]);
    const running = await createBooking(alice, { host: host.name, slices: ["0:2"], startsAt: at(1).toISOString(), durationMinutes: 60, purpose: "now" }, { now: NOW });
    const later = await createBooking(bob, { host: host.name, slices: ["0:2"], startsAt: at(24 * 60).toISOString(), durationMinutes: 60, purpose: "tomorrow" }, { now: NOW });
    const other = await createBooking(carol, { host: host.name, slices: ["0:1"], startsAt: at(24 * 60).toISOString(), durationMinutes: 60, purpose: "kept" }, { now: NOW });

    // The layout changes: 0:2 is destroyed; the others are seen again five minutes on.
    await host.report([0, 1, 3], at(5));
    const asBob = await listBookings(bob, { all: false, state: "current", limit: 10 }, at(6));
    const flagged = asBob.find((view) => view.id === later.id);
    expect(flagged?.sliceGone).toBe(true);
    expect(flagged?.gpus).toMatchObject([{ uuid: host.slices[2]!.uuid, gone: true, mig: { deviceIndex: 2, profile: "1g.10gb" } }]);
    const asCarol = await listBookings(carol, { all: false, state: "current", limit: 10 }, at(6));
    expect(asCarol.find((view) => view.id === other.id)?.sliceGone).toBeUndefined();
    // An admin's list shows it too.
    const admin = await fx.createTestUser("admin");
    const everyone = await listBookings(admin, { all: true, state: "current", limit: 10 }, at(6));
    expect(everyone.filter((view) => view.host.id === host.id && view.sliceGone).map((view) => view.id).sort()).toEqual([running.id, later.id].sort());

    // The gpu_lost alert opens: both bookers (the running booking's and the one to come) are told, once.
    const alert = {
      serverTime: at(7).toISOString(),
      event: "opened",
      alert: { id: `alert-${host.id}`, kind: "gpu_lost", gpu: { uuid: host.slices[2]!.uuid, index: 0 }, message: `MIG slice ${host.slices[2]!.uuid} of GPU 0 is gone from ${host.name}` },
    } as unknown as AlertUpdate;
    const told: { userId: string; title: string }[] = [];
    const stopListening = onPersonNotice((notice) => told.push({ userId: notice.userId, title: notice.title }));
    try {
      expect(await tellBookersOfLostUnit(alert, undefined, at(7))).toBe(2);
      expect(await tellBookersOfLostUnit(alert, undefined, at(8))).toBe(0);
      // The sweep of the stored layouts finds the same bookings on the same slice: told already, nothing again.
      expect(await tellBookersOfGoneUnits(undefined, at(8), [host.id])).toBe(0);
    } finally {
      stopListening();
    }
    const notices = await db().personNotice.findMany({ where: { key: { in: [running.id, later.id].map((id) => `booking.unit_gone:${id}:${host.slices[2]!.uuid}`) } }, select: { userId: true, event: true } });
    expect(notices.map((notice) => notice.userId).sort()).toEqual([alice.id, bob.id].sort());
    // The slice is named as every surface names it, not "a MIG slice of GPU 0".
    expect(told.map((notice) => notice.title)).toEqual([alice.id, bob.id].map(() => `GPU 0:2 (1g.10gb) you booked on ${host.name} is gone`));

    // The slice is back under its MIG UUID: no flag.
    await host.report([0, 1, 2, 3], at(10));
    const back = await listBookings(bob, { all: false, state: "current", limit: 10 }, at(11));
    expect(back.find((view) => view.id === later.id)?.sliceGone).toBeUndefined();
  });

  it("is flagged seconds after the layout changed, and a late write of an older reading's times does not hide it", async () => {
    const host = await migHost();
    const bob = await fx.createTestUser();
    const later = await createBooking(bob, { host: host.name, slices: ["0:2"], startsAt: at(24 * 60).toISOString(), durationMinutes: 60, purpose: "tomorrow" }, { now: NOW });
    const seconds = (n: number) => new Date(NOW.getTime() + n * 1000);
    const everyUnit = [host.parent, ...host.slices].map((gpu) => gpu.uuid);
    // The last-seen batch of a reading with every slice, then the reading without 0:2, five seconds on.
    await recordHostsSeen([host.id], everyUnit, seconds(30));
    await host.report([0, 1, 3], seconds(35));
    const flagged = async () => (await listBookings(bob, { all: false, state: "current", limit: 10 }, seconds(36))).find((view) => view.id === later.id)?.sliceGone;
    expect(await flagged()).toBe(true);
    // A batch of the older reading (it still named 0:2) lands after the new inventory: the times stay the new ones.
    await recordHostsSeen([host.id], everyUnit, seconds(32));
    expect(await flagged()).toBe(true);
    const rows = await db().gpu.findMany({ where: { uuid: { in: everyUnit } }, select: { uuid: true, lastSeenAt: true } });
    expect(Object.fromEntries(rows.map((row) => [row.uuid, row.lastSeenAt.toISOString()]))).toEqual({
      [host.parent.uuid]: seconds(35).toISOString(),
      [host.slices[0]!.uuid]: seconds(35).toISOString(),
      [host.slices[1]!.uuid]: seconds(35).toISOString(),
      [host.slices[2]!.uuid]: seconds(32).toISOString(),
      [host.slices[3]!.uuid]: seconds(35).toISOString(),
    });
    // The other slices are units still, and the next batches move them with their GPU.
    await recordHostsSeen([host.id], [host.parent.uuid, host.slices[0]!.uuid, host.slices[1]!.uuid, host.slices[3]!.uuid], seconds(95));
    expect(await flagged()).toBe(true);
    const other = await createBooking(bob, { host: host.name, slices: ["0:3"], startsAt: at(24 * 60).toISOString(), durationMinutes: 60, purpose: "a slice still there" }, { now: seconds(96) });
    expect(other.gpus).toMatchObject([{ mig: { deviceIndex: 3 } }]);
  });
});
