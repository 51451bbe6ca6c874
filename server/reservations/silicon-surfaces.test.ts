import { beforeAll, describe, expect, it } from "vitest";
import type { GpuSample } from "@/lib/snapshot";
import type { LiveGpu, LiveHost } from "@/lib/live";
import { isGpuFree, siliconOf } from "@/lib/gpu-availability";
import { gpuStateOnPage } from "@/lib/gpu-state-now";
import { bookingsOfGpu } from "@/lib/live-fleet-state";
import { hostAvailability, pickerGpu, type LiveView } from "@/components/reservations/picker-state";
import { activeBooking } from "@/server/cli-client/format-output";
import { staticDirectory } from "@/server/attribution/user-directory";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Silicon is booked once on every surface, not only in the booking
 * transaction: after a layout change, a unit that shares silicon with a
 * running booking (a slice of a GPU booked whole, or a GPU one of whose
 * former slices is booked) is refused by the server, held on the fleet page,
 * taken in the form's picker, held in the API's states and bookings, and
 * held in the CLI's status. The surfaces are compared with one another here.
 * Layout: 4g.40gb + 3g.40gb, not the demo's.
 */

let createReservation: typeof import("@/server/reservations/create-reservation").createReservation;
let listLiveBookings: typeof import("@/server/reservations/bookings-query").listLiveBookings;
let listBookableHosts: typeof import("@/server/reservations/bookings-query").listBookableHosts;
let reconcileFleet: typeof import("@/server/attribution/reconcile-fleet").reconcileFleet;
let activeBookingsByGpu: typeof import("@/server/attribution/reconcile-fleet").activeBookingsByGpu;
let recordHostInventory: typeof import("@/server/hosts/host-registry").recordHostInventory;
let ensureLocalHost: typeof import("@/server/hosts/host-registry").ensureLocalHost;
let fx: typeof import("@/server/testing/booking-fixtures");
let factories: typeof import("@/server/testing/factories");

const NOW = new Date("2026-12-01T10:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();
const INFO = { driverVersion: "590.48.01", cudaVersion: "13.1" };

beforeAll(async () => {
  await useTestDatabase();
  ({ createReservation } = await import("@/server/reservations/create-reservation"));
  ({ listLiveBookings, listBookableHosts } = await import("@/server/reservations/bookings-query"));
  ({ reconcileFleet, activeBookingsByGpu } = await import("@/server/attribution/reconcile-fleet"));
  ({ recordHostInventory, ensureLocalHost } = await import("@/server/hosts/host-registry"));
  fx = await import("@/server/testing/booking-fixtures");
  factories = await import("@/server/testing/factories");
}, 60_000);

/** An idle H100 pair; `split` reports GPU 0 as 4g.40gb + 3g.40gb, `whole` as one GPU. Each returns the live readings as the page holds them. */
async function layoutHost() {
  const name = factories.uniqueName("surfaces");
  const host = await ensureLocalHost(name, true);
  const idle = { utilizationGpuPct: 0, memoryUsedMiB: 0 };
  const gpu0 = factories.makeGpu({ index: 0, ...idle });
  const gpu1 = factories.makeGpu({ index: 1, pciBusId: "00000000:18:00.0", ...idle });
  const slices: GpuSample[] = ["4g.40gb", "3g.40gb"].map((profile, deviceIndex) =>
    factories.makeGpu({
      index: 0,
      uuid: `MIG-${factories.gpuUuid().slice(4)}`,
      memoryTotalMiB: 40448,
      memoryUsedMiB: 0,
      utilizationGpuPct: null,
      migMode: "Enabled",
      mig: { parentUuid: gpu0.uuid, profile, gpuInstanceId: deviceIndex + 1, computeInstanceId: 0, deviceIndex },
    }),
  );
  const live = (samples: GpuSample[], seenAt: Date): LiveGpu[] => samples.map((gpu) => ({ ...gpu, hostId: host.id, hostName: name, sampledAt: seenAt.toISOString(), processes: [] }));
  const report = async (samples: GpuSample[], seenAt: Date) => {
    await recordHostInventory(host.id, { name, ...INFO }, samples, seenAt);
    return live(samples, seenAt);
  };
  const liveHost: LiveHost = { id: host.id, name, simulated: false, online: true, lastSeenAt: null, driverVersion: INFO.driverVersion, cudaVersion: INFO.cudaVersion, gpuUuids: [] };
  return {
    name,
    liveHost,
    whole: (seenAt: Date) => report([{ ...gpu0, migMode: "Disabled" }, gpu1], seenAt),
    split: (seenAt: Date) => report([{ ...gpu0, migMode: "Enabled", utilizationGpuPct: null }, ...slices, gpu1], seenAt),
  };
}

/** What every surface says of one unit at `now`, given the live readings of its host. */
async function surfaces(host: Awaited<ReturnType<typeof layoutHost>>, gpus: LiveGpu[], uuid: string, viewerId: string, now: Date) {
  const bookings = await listLiveBookings(now);
  const unit = gpus.find((gpu) => gpu.uuid === uuid)!;
  const liveHost = { ...host.liveHost, gpuUuids: gpus.map((gpu) => gpu.uuid) };
  // The API and the tick: the reconciliation and the booking it names per unit (server/fleet/fleet-answer.ts).
  const states = reconcileFleet({ hosts: [liveHost], gpus }, bookings, staticDirectory([]), now.getTime());
  const apiBooking = activeBookingsByGpu(bookings, now.getTime(), gpus).get(uuid) ?? null;
  // The form: the server's list of bookable units, read by the picker with the live view.
  const bookable = (await listBookableHosts()).find((entry) => entry.name === host.name)!;
  const formUnit = bookable.gpus.find((gpu) => gpu.uuid === uuid)!;
  const live: LiveView = { ready: true, gpus: Object.fromEntries(gpus.map((gpu) => [gpu.uuid, gpu])), onlineHostIds: new Set([liveHost.id]), bookings, states: {} };
  const window = { startMs: now.getTime(), endMs: now.getTime() + 30 * 60_000 };
  return {
    api: { state: states[uuid]!.state, reservationId: apiBooking?.reservationId ?? null },
    page: {
      state: gpuStateOnPage(unit, true, bookings, undefined, now.getTime()),
      reconciled: gpuStateOnPage(unit, true, bookings, states[uuid], now.getTime()),
      reservationId: bookingsOfGpu(bookings, siliconOf(unit), now.getTime()).current?.reservationId ?? null,
    },
    form: { kind: pickerGpu(formUnit, liveHost.id, live, window, now.getTime(), viewerId).kind, host: hostAvailability(bookable, live, window, now.getTime()) },
    cli: activeBooking(bookings, siliconOf(unit), now.getTime())?.reservationId ?? null,
  };
}

describe("every surface holds a unit whose silicon a booking of the other layout takes", () => {
  it("whole then split: the slices of a GPU booked whole are booked on the page, the form, the API and the CLI, as the server refuses them", async () => {
    const host = await layoutHost();
    await host.whole(NOW);
    const [alice, bob] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const whole = await createReservation(alice, { host: host.name, gpus: [0], startsAt: iso(0), durationMinutes: 120, purpose: "whole run" }, { now: NOW });
    const gpus = await host.split(at(1));
    const [slice0, slice1] = gpus.filter((gpu) => gpu.mig);

    const refused = await fx.refusal(createReservation(bob, { host: host.name, slices: ["0:0"], startsAt: iso(2), durationMinutes: 30, purpose: "slice" }, { now: at(2) }));
    expect(refused.code).toBe("conflict");
    for (const slice of [slice0!, slice1!]) {
      expect(await surfaces(host, gpus, slice.uuid, bob.id, at(2))).toEqual({
        api: { state: "booked_idle", reservationId: whole.id },
        page: { state: "booked_idle", reconciled: "booked_idle", reservationId: whole.id },
        form: { kind: "taken", host: "1 of 3 free, 2 booked and idle" },
        cli: whole.id,
      });
    }
    // The other GPU stays free everywhere.
    const other = await surfaces(host, gpus, gpus.find((gpu) => gpu.index === 1)!.uuid, bob.id, at(2));
    expect([other.api.state, other.page.state, other.form.kind, other.cli]).toEqual(["free", "free", "free", null]);
    expect(isGpuFree(other.api.state)).toBe(true);

    // After the whole booking ends, the slices are free on every surface, and the server books one.
    const after = await surfaces(host, gpus, slice0!.uuid, bob.id, at(121));
    expect([after.api.state, after.page.state, after.form.kind, after.cli]).toEqual(["free", "free", "free", null]);
    await createReservation(bob, { host: host.name, slices: ["0:0"], startsAt: iso(121), durationMinutes: 30, purpose: "after" }, { now: at(121) });
  });

  it("split then whole: a GPU one of whose former slices is booked is booked on every surface, as the server refuses it", async () => {
    const host = await layoutHost();
    await host.split(NOW);
    const [alice, bob] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const slice = await createReservation(alice, { host: host.name, slices: ["0:1"], startsAt: iso(0), durationMinutes: 120, purpose: "slice run" }, { now: NOW });
    const gpus = await host.whole(at(1));
    const gpu0 = gpus.find((gpu) => gpu.index === 0)!;

    const refused = await fx.refusal(createReservation(bob, { host: host.name, gpus: [0], startsAt: iso(2), durationMinutes: 30, purpose: "whole" }, { now: at(2) }));
    expect(refused.code).toBe("conflict");
    expect(await surfaces(host, gpus, gpu0.uuid, bob.id, at(2))).toEqual({
      api: { state: "booked_idle", reservationId: slice.id },
      page: { state: "booked_idle", reconciled: "booked_idle", reservationId: slice.id },
      form: { kind: "taken", host: "1 of 2 free, 1 booked and idle" },
      cli: slice.id,
    });
  });

  it("a split GPU itself is held by none of its slices' bookings: it is no unit, its slices are", async () => {
    const host = await layoutHost();
    const gpus = await host.split(NOW);
    const alice = await fx.createTestUser();
    await createReservation(alice, { host: host.name, slices: ["0:0"], startsAt: iso(0), durationMinutes: 60, purpose: "one slice" }, { now: NOW });
    const parent = gpus.find((gpu) => gpu.index === 0 && !gpu.mig)!;
    const sibling = gpus.find((gpu) => gpu.mig?.deviceIndex === 1)!;
    const bookings = await listLiveBookings(at(1));
    expect(activeBookingsByGpu(bookings, at(1).getTime(), gpus).has(parent.uuid)).toBe(false);
    expect(bookingsOfGpu(bookings, siliconOf(parent), at(1).getTime()).current).toBeNull();
    // Slices of one GPU have their own silicon: the other slice stays free.
    const other = await surfaces(host, gpus, sibling.uuid, alice.id, at(1));
    expect([other.api.state, other.page.state, other.form.kind, other.cli]).toEqual(["free", "free", "free", null]);
  });
});
