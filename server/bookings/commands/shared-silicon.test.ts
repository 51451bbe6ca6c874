import { beforeAll, describe, expect, it, vi } from "vitest";
import type { GpuSample } from "@/lib/domain/snapshot";
import type { LiveGpu, LiveHost } from "@/lib/live/live";
import { rangesOverlap } from "@/lib/domain/booking-state";
import { isGpuFree, siliconOf } from "@/lib/domain/gpu-availability";
import { gpuStateOnPage } from "@/lib/live/gpu-state-now";
import { bookingsOfGpu } from "@/lib/live/live-fleet-state";
import { hostAvailability, pickerGpu, type LiveView } from "@/components/bookings/picker-state";
import { activeBooking } from "@/host/cli-client/format-output";
import { staticDirectory } from "@/server/attribution/user-directory";
import { manualTimers } from "@/server/testing/manual-timers";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Silicon is booked once: a GPU's bookings and its slices' conflict,
 * whatever the MIG layout was when each was made (ARCHITECTURE.md, round 4).
 * The layout here is 4g.40gb + 3g.40gb, not the demo's.
 */

let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let changeBookingEnd: typeof import("@/server/bookings/commands/change-booking").changeBookingEnd;
let listBookings: typeof import("@/server/bookings/views/list-bookings").listBookings;
let recordHostInventory: typeof import("@/server/hosts/host-registry").recordHostInventory;
let ensureLocalHost: typeof import("@/server/hosts/host-registry").ensureLocalHost;
let tellBookersOfGoneUnits: typeof import("@/server/notifications/booking-notices").tellBookersOfGoneUnits;
let listLiveBookings: typeof import("@/server/bookings/views/bookings-query").listLiveBookings;
let listBookableHosts: typeof import("@/server/bookings/views/bookings-query").listBookableHosts;
let reconcileFleet: typeof import("@/server/attribution/reconcile-fleet").reconcileFleet;
let activeBookingsByGpu: typeof import("@/server/attribution/reconcile-fleet").activeBookingsByGpu;
let db: typeof import("@/server/core/db").db;
let fx: typeof import("@/server/testing/booking-fixtures");
let factories: typeof import("@/server/testing/factories");

const NOW = new Date("2026-12-01T10:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();
const INFO = { driverVersion: "590.48.01", cudaVersion: "13.1" };

beforeAll(async () => {
  await useTestDatabase();
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ changeBookingEnd } = await import("@/server/bookings/commands/change-booking"));
  ({ listBookings } = await import("@/server/bookings/views/list-bookings"));
  ({ recordHostInventory, ensureLocalHost } = await import("@/server/hosts/host-registry"));
  ({ tellBookersOfGoneUnits } = await import("@/server/notifications/booking-notices"));
  ({ listLiveBookings, listBookableHosts } = await import("@/server/bookings/views/bookings-query"));
  ({ reconcileFleet, activeBookingsByGpu } = await import("@/server/attribution/reconcile-fleet"));
  ({ db } = await import("@/server/core/db"));
  fx = await import("@/server/testing/booking-fixtures");
  factories = await import("@/server/testing/factories");
}, 60_000);

/**
 * A host with idle H100s 0 and 1; `split()` reports GPU 0 as 4g.40gb +
 * 3g.40gb, `whole()` as one GPU again. Each stores the inventory and
 * answers the readings as the live fleet holds them.
 */
async function layoutHost() {
  const name = factories.uniqueName("silicon");
  const host = await ensureLocalHost(name, true);
  const idle = { utilizationGpuPct: 0, memoryUsedMiB: 0 };
  const gpu0 = factories.makeGpu({ index: 0, ...idle });
  const gpu1 = factories.makeGpu({ index: 1, pciBusId: "00000000:18:00.0", ...idle });
  const slices: GpuSample[] = [
    ["4g.40gb", 40448],
    ["3g.40gb", 40448],
  ].map(([profile, memory], deviceIndex) =>
    factories.makeGpu({
      index: 0,
      uuid: `MIG-${factories.gpuUuid().slice(4)}`,
      memoryTotalMiB: memory as number,
      memoryUsedMiB: 0,
      utilizationGpuPct: null,
      migMode: "Enabled",
      mig: { parentUuid: gpu0.uuid, profile: profile as string, gpuInstanceId: [1, 2][deviceIndex]!, computeInstanceId: 0, deviceIndex },
    }),
  );
  const report = async (samples: GpuSample[], seenAt: Date): Promise<LiveGpu[]> => {
    await recordHostInventory(host.id, { name, ...INFO }, samples, seenAt);
    return samples.map((gpu) => ({ ...gpu, hostId: host.id, hostName: name, sampledAt: seenAt.toISOString(), processes: [] }));
  };
  const whole = (seenAt: Date) => report([{ ...gpu0, migMode: "Disabled" }, gpu1], seenAt);
  const split = (seenAt: Date) => report([{ ...gpu0, migMode: "Enabled", utilizationGpuPct: null }, ...slices, gpu1], seenAt);
  const liveHost: LiveHost = { id: host.id, name, simulated: false, online: true, lastSeenAt: null, driverVersion: INFO.driverVersion, cudaVersion: INFO.cudaVersion, gpuUuids: [] };
  return { id: host.id, name, gpu0, slices, whole, split, liveHost };
}

/** Pairs of bookings on this host that share silicon (the same unit, or a GPU and one of its slices) and an instant. */
async function siliconOverlaps(hostId: string): Promise<string[]> {
  const rows = await db().reservationGpu.findMany({
    where: { gpu: { hostId } },
    select: { reservationId: true, startsAt: true, endsAt: true, gpu: { select: { uuid: true, parentUuid: true } } },
  });
  const found: string[] = [];
  for (const a of rows) {
    for (const b of rows) {
      if (a.reservationId >= b.reservationId) continue;
      const shared = a.gpu.uuid === b.gpu.uuid || a.gpu.parentUuid === b.gpu.uuid || b.gpu.parentUuid === a.gpu.uuid;
      if (shared && rangesOverlap(a.startsAt.getTime(), a.endsAt.getTime(), b.startsAt.getTime(), b.endsAt.getTime())) found.push(`${a.reservationId} and ${b.reservationId}`);
    }
  }
  return found;
}

describe("silicon is booked once across MIG layouts", () => {
  it("whole then split: a slice of a GPU booked whole is refused for the same time, naming the whole booking; later it is free", async () => {
    const host = await layoutHost();
    await host.whole(NOW);
    const [alice, bob] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const whole = await createBooking(alice, { host: host.name, gpus: [0], startsAt: iso(5), durationMinutes: 120, purpose: "whole run" }, { now: NOW });
    await host.split(at(1));

    const refused = await fx.refusal(createBooking(bob, { host: host.name, slices: ["0:0"], startsAt: iso(10), durationMinutes: 120, purpose: "slice" }, { now: at(2) }));
    expect(refused.code).toBe("conflict");
    expect(refused.message).toContain(`GPU 0 on ${host.name} is booked by ${alice.name} until ${iso(125)} (purpose: whole run)`);
    // "Any slice" finds none either: both slices share the booked GPU's silicon.
    const any = await fx.refusal(createBooking(bob, { host: host.name, count: 1, slice: {}, startsAt: iso(10), durationMinutes: 60, purpose: "any" }, { now: at(2) }));
    expect(any.code).toBe("conflict");
    // After the whole booking ends, the slice is bookable.
    const after = await createBooking(bob, { host: host.name, slices: ["0:0"], startsAt: iso(125), durationMinutes: 60, purpose: "after" }, { now: at(2) });
    expect(after.gpus.map((gpu) => gpu.mig)).toEqual([{ deviceIndex: 0, profile: "4g.40gb" }]);

    // The whole booking no longer maps to a unit: flagged to its booker and in the admins' list, and the booker is told once.
    const mine = await listBookings(alice, { all: false, state: "current", limit: 10 }, at(3));
    expect(mine.find((view) => view.id === whole.id)).toMatchObject({ sliceGone: true, gpus: [{ index: 0, gone: true }] });
    const admin = await fx.createTestUser("admin");
    const all = await listBookings(admin, { all: true, state: "current", limit: 20 }, at(3));
    expect(all.filter((view) => view.host.id === host.id && view.sliceGone).map((view) => view.id)).toEqual([whole.id]);
    expect(await tellBookersOfGoneUnits(undefined, at(3), [host.id])).toBe(1);
    expect(await tellBookersOfGoneUnits(undefined, at(4), [host.id])).toBe(0);
    const notice = await db().personNotice.findFirstOrThrow({ where: { userId: alice.id, event: "booking.unit_gone" }, select: { key: true } });
    expect(notice.key).toContain(whole.id);
    expect(await siliconOverlaps(host.id)).toEqual([]);
  });

  it("a changed inventory stored from an agent's reading is announced, and the split GPU's booker hears of it through that", async () => {
    const { createHostPersistence } = await import("@/server/hosts/host-persistence");
    const { onInventoryChanged } = await import("@/server/hosts/inventory-events");
    const { startMisuseNotices } = await import("@/server/notifications/booking-notices");
    const host = await layoutHost();
    await host.whole(NOW);
    const alice = await fx.createTestUser();
    // The listener acts at the real time: the booking is one still to come then.
    const real = new Date();
    const whole = await createBooking(alice, { host: host.name, gpus: [0], startsAt: new Date(real.getTime() + 5 * 60_000).toISOString(), durationMinutes: 120, purpose: "whole, then split" }, { now: real });
    const heard: string[] = [];
    const stopHearing = onInventoryChanged((change) => heard.push(change.hostId));
    const stopNotices = startMisuseNotices();
    try {
      const persistence = createHostPersistence();
      const units = [{ ...host.gpu0, migMode: "Enabled", utilizationGpuPct: null }, ...host.slices];
      persistence.persist({ id: host.id, name: host.name, simulated: false }, factories.makeSnapshot(units, real.getTime(), { host: { name: host.name, ...INFO } }), true);
      await persistence.flush();
      expect(heard).toContain(host.id);
      await vi.waitFor(async () => {
        expect(await db().personNotice.count({ where: { userId: alice.id, event: "booking.unit_gone", key: { contains: whole.id } } })).toBe(1);
      });
    } finally {
      stopHearing();
      await stopNotices();
    }
  });

  it("a layout stored where no leader listened (another instance, a restart) is told by the next leader's sweep, once, in both directions", async () => {
    const { startMisuseNotices } = await import("@/server/notifications/booking-notices");
    const { onPersonNotice } = await import("@/server/notifications/notify-person");
    const splitHost = await layoutHost();
    const mergedHost = await layoutHost();
    const real = new Date();
    const soon = (minutes: number) => new Date(real.getTime() + minutes * 60_000).toISOString();
    await splitHost.whole(real);
    await mergedHost.split(real);
    const [alice, bob] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const whole = await createBooking(alice, { host: splitHost.name, gpus: [0], startsAt: soon(5), durationMinutes: 120, purpose: "whole" }, { now: real });
    const slice = await createBooking(bob, { host: mergedHost.name, slices: ["0:1"], startsAt: soon(5), durationMinutes: 120, purpose: "slice" }, { now: real });
    // Stored with nobody listening: as when another instance took the agents' readings, or the leader was down.
    await splitHost.split(new Date(real.getTime() + 1000));
    await mergedHost.whole(new Date(real.getTime() + 1000));

    const told: { userId: string; title: string; text: string }[] = [];
    const stopListening = onPersonNotice((notice) => told.push({ userId: notice.userId, title: notice.title, text: notice.text }));
    try {
      const firstTerm = startMisuseNotices({ timers: manualTimers() });
      await vi.waitFor(() => expect(told.filter((notice) => [alice.id, bob.id].includes(notice.userId))).toHaveLength(2));
      await firstTerm();
      // A second term of leadership (or a second instance's) sweeps the same stored state: nothing is told again.
      // Its sweep starts with the term, and stopping waits for it.
      const secondTerm = startMisuseNotices({ timers: manualTimers() });
      await secondTerm();
    } finally {
      stopListening();
    }
    const mine = told.filter((notice) => [alice.id, bob.id].includes(notice.userId));
    expect(mine).toHaveLength(2);
    expect(mine.find((notice) => notice.userId === alice.id)).toMatchObject({
      title: `GPU 0 you booked on ${splitHost.name} is gone`,
      text: expect.stringContaining(`GPU 0 on ${splitHost.name} was split into MIG slices, so it cannot be used whole. Your booking "whole"`),
    });
    expect(mine.find((notice) => notice.userId === bob.id)).toMatchObject({
      title: `GPU 0:1 (3g.40gb) you booked on ${mergedHost.name} is gone`,
      text: expect.stringContaining(`GPU 0:1 (3g.40gb) on ${mergedHost.name} is gone: GPU 0's MIG layout changed (it is whole again)`),
    });
    expect(await db().personNotice.count({ where: { key: { in: [`booking.unit_gone:${whole.id}:${splitHost.gpu0.uuid}`, `booking.unit_gone:${slice.id}:${mergedHost.slices[1]!.uuid}`] } } })).toBe(2);
  });

  it("split then whole: a GPU one of whose slices is booked is refused whole, and 'any GPU' takes the other one", async () => {
    const host = await layoutHost();
    await host.split(NOW);
    const [alice, bob] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const slice = await createBooking(alice, { host: host.name, slices: ["0:1"], startsAt: iso(5), durationMinutes: 120, purpose: "slice run" }, { now: NOW });
    await host.whole(at(1));

    const refused = await fx.refusal(createBooking(bob, { host: host.name, gpus: [0], startsAt: iso(30), durationMinutes: 60, purpose: "whole" }, { now: at(2) }));
    expect(refused.code).toBe("conflict");
    expect(refused.message).toContain(`GPU 0:1 (3g.40gb) on ${host.name} is booked by ${alice.name} until ${iso(125)} (purpose: slice run)`);
    const any = await createBooking(bob, { host: host.name, count: 1, startsAt: iso(30), durationMinutes: 60, purpose: "any" }, { now: at(2) });
    expect(any.gpus.map((gpu) => gpu.index)).toEqual([1]);

    // The slice booking is flagged: its slice is gone with the layout.
    const mine = await listBookings(alice, { all: false, state: "current", limit: 10 }, at(3));
    expect(mine.find((view) => view.id === slice.id)).toMatchObject({ sliceGone: true, gpus: [{ gone: true, mig: { deviceIndex: 1, profile: "3g.40gb" } }] });
    expect(await siliconOverlaps(host.id)).toEqual([]);
  });

  /** The booker extends `held` into [40, 100) while twelve people book `request` for it at once: outcomes, the extension's first. */
  async function extendWhileBooking(bookedBy: Awaited<ReturnType<typeof fx.createTestUser>>, heldId: string, request: (i: number) => { gpus?: number[]; slices?: string[] }) {
    const hostName = (await db().reservation.findUniqueOrThrow({ where: { id: heldId }, select: { host: { select: { name: true } } } })).host.name;
    const people = await Promise.all(Array.from({ length: 12 }, () => fx.createTestUser()));
    const outcome = (promise: Promise<unknown>, ok: string) => promise.then(() => ok, (error: { code?: string }) => error.code ?? "unexpected");
    const outcomes = await Promise.all([
      outcome(changeBookingEnd(bookedBy, heldId, { endsAt: iso(120) }, { now: at(2) }), "extended"),
      ...people.map((person, i) => outcome(createBooking(person, { host: hostName, ...request(i), startsAt: iso(40), durationMinutes: 60, purpose: `race ${i}` }, { now: at(2) }), "booked")),
    ]);
    expect(outcomes.every((value) => ["extended", "booked", "conflict"].includes(value))).toBe(true);
    return { extended: outcomes[0] === "extended", booked: outcomes.filter((value) => value === "booked").length };
  }

  it("a whole booking extended into time its slices are being booked for: exactly one side wins the race", async () => {
    const host = await layoutHost();
    await host.whole(NOW);
    const alice = await fx.createTestUser();
    const whole = await createBooking(alice, { host: host.name, gpus: [0], startsAt: iso(5), durationMinutes: 30, purpose: "whole" }, { now: NOW });
    await host.split(at(1));
    const { extended, booked } = await extendWhileBooking(alice, whole.id, (i) => ({ slices: [i % 2 === 0 ? "0:0" : "0:1"] }));
    // Either the extension won (no slice booked) or slices won (one per slice, and the extension was refused).
    expect(booked).toBe(extended ? 0 : 2);
    expect(await siliconOverlaps(host.id)).toEqual([]);
  });

  it("a slice booking extended into time its GPU is being booked whole for: exactly one side wins the race", async () => {
    const host = await layoutHost();
    await host.split(NOW);
    const alice = await fx.createTestUser();
    const slice = await createBooking(alice, { host: host.name, slices: ["0:0"], startsAt: iso(5), durationMinutes: 30, purpose: "slice" }, { now: NOW });
    await host.whole(at(1));
    const { extended, booked } = await extendWhileBooking(alice, slice.id, () => ({ gpus: [0] }));
    expect(booked).toBe(extended ? 0 : 1);
    expect(await siliconOverlaps(host.id)).toEqual([]);
  });
});

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

/*
 * Silicon is booked once on every surface, not only in the booking
 * transaction: after a layout change, a unit that shares silicon with a
 * running booking is refused by the server, held on the fleet page, taken
 * in the form's picker, held in the API's states and bookings, and held in
 * the CLI's status. The surfaces are compared with one another.
 */
describe("every surface holds a unit whose silicon a booking of the other layout takes", () => {
  it("whole then split: the slices of a GPU booked whole are booked on the page, the form, the API and the CLI, as the server refuses them", async () => {
    const host = await layoutHost();
    await host.whole(NOW);
    const [alice, bob] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const whole = await createBooking(alice, { host: host.name, gpus: [0], startsAt: iso(0), durationMinutes: 120, purpose: "whole run" }, { now: NOW });
    const gpus = await host.split(at(1));
    const [slice0, slice1] = gpus.filter((gpu) => gpu.mig);

    const refused = await fx.refusal(createBooking(bob, { host: host.name, slices: ["0:0"], startsAt: iso(2), durationMinutes: 30, purpose: "slice" }, { now: at(2) }));
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
    await createBooking(bob, { host: host.name, slices: ["0:0"], startsAt: iso(121), durationMinutes: 30, purpose: "after" }, { now: at(121) });
  });

  it("split then whole: a GPU one of whose former slices is booked is booked on every surface, as the server refuses it", async () => {
    const host = await layoutHost();
    await host.split(NOW);
    const [alice, bob] = await Promise.all([fx.createTestUser(), fx.createTestUser()]);
    const slice = await createBooking(alice, { host: host.name, slices: ["0:1"], startsAt: iso(0), durationMinutes: 120, purpose: "slice run" }, { now: NOW });
    const gpus = await host.whole(at(1));
    const gpu0 = gpus.find((gpu) => gpu.index === 0)!;

    const refused = await fx.refusal(createBooking(bob, { host: host.name, gpus: [0], startsAt: iso(2), durationMinutes: 30, purpose: "whole" }, { now: at(2) }));
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
    await createBooking(alice, { host: host.name, slices: ["0:0"], startsAt: iso(0), durationMinutes: 60, purpose: "one slice" }, { now: NOW });
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
