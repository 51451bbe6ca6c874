import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeMinuteRow, NO_READINGS } from "@/server/testing/factories";
import type { MinuteRow } from "@/server/minutes/minute-row";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Idle release against a real database, on SQLite and PostgreSQL: the
 * decision from stored minutes, the release transaction against a
 * concurrent extend, keep or manual release, keeps, exemptions and
 * report-only mode, and a second runner (a restart, a new leader) that
 * carries on from what is stored.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let fx: Fixtures;
let db: typeof import("@/server/core/db").db;
let createBooking: typeof import("@/server/bookings/commands/create-booking").createBooking;
let changeBookingEnd: typeof import("@/server/bookings/commands/change-booking").changeBookingEnd;
let releaseBooking: typeof import("@/server/bookings/commands/end-booking").releaseBooking;
let getBooking: typeof import("@/server/bookings/views/list-bookings").getBooking;
let releaseIdleBooking: typeof import("@/server/bookings/commands/release-idle-booking").releaseIdleBooking;
let keepBooking: typeof import("@/server/bookings/commands/keep-booking").keepBooking;
let runIdlePass: typeof import("@/server/idle-release/idle-runner").runIdlePass;
let addIdleExemption: typeof import("@/server/idle-release/idle-exemptions").addIdleExemption;
let onIdleNotice: typeof import("@/server/idle-release/notify-idle").onIdleNotice;
let updatePolicy: typeof import("@/server/bookings/rules/policy").updatePolicy;

const NOW = new Date("2026-12-01T10:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  fx = await import("@/server/testing/booking-fixtures");
  ({ db } = await import("@/server/core/db"));
  ({ createBooking } = await import("@/server/bookings/commands/create-booking"));
  ({ changeBookingEnd } = await import("@/server/bookings/commands/change-booking"));
  ({ releaseBooking } = await import("@/server/bookings/commands/end-booking"));
  ({ getBooking } = await import("@/server/bookings/views/list-bookings"));
  ({ releaseIdleBooking } = await import("@/server/bookings/commands/release-idle-booking"));
  ({ keepBooking } = await import("@/server/bookings/commands/keep-booking"));
  ({ runIdlePass } = await import("@/server/idle-release/idle-runner"));
  ({ addIdleExemption } = await import("@/server/idle-release/idle-exemptions"));
  ({ onIdleNotice } = await import("@/server/idle-release/notify-idle"));
  ({ updatePolicy } = await import("@/server/bookings/rules/policy"));
}, 120_000);

let admin: Awaited<ReturnType<Fixtures["createTestUser"]>>;
beforeEach(async () => {
  admin ??= await fx.createTestUser("admin", "idleadmin");
  await updatePolicy(admin, { maxDurationMinutes: 7 * 24 * 60, maxGpusPerUser: 8, maxAdvanceDays: 30, idleReleaseAfterMinutes: 120, idleWarningMinutes: 30, idleBelowPct: 5, idleKeepsPerBooking: 1, idleReportOnly: false });
});

/** Stored minute rollups of `uuids` for minutes [from, to) after NOW, at `util`. */
async function storeMinutes(hostId: string, uuids: string[], from: number, to: number, util: number): Promise<void> {
  const data: MinuteRow[] = [];
  for (let minute = from; minute < to; minute += 1) {
    for (const uuid of uuids) data.push(makeMinuteRow(uuid, hostId, at(minute).getTime(), { ...NO_READINGS, samples: 12, utilAvg: util, utilMax: util, memUsedAvg: 29_000, memUsedMax: 29_000 }));
  }
  const { upsertMinuteRows } = await import("@/server/history/rollup-store");
  await upsertMinuteRows(db(), data);
}

/** A booking from NOW for 8 hours on `count` GPUs, idle for its first `idleMinutes` minutes. */
async function idleBooking(count = 1, idleMinutes = 150) {
  const host = await fx.createTestHost(count);
  const bookedBy = await fx.createTestUser("member", "idlebooker");
  const booking = await createBooking(bookedBy, { host: host.name, gpus: host.gpus.map((gpu) => gpu.index), durationMinutes: 8 * 60, purpose: "idle" }, { now: NOW });
  await storeMinutes(host.id, host.gpus.map((gpu) => gpu.uuid), 0, idleMinutes, 0);
  return { host, bookedBy, booking };
}

function settle<T>(promise: Promise<T>) {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: { code?: string }) => ({ ok: false as const, code: error.code ?? "unexpected" }),
  );
}

const pass = (minutes: number) => runIdlePass({ liveGpus: () => [], alertHoldMinutes: 30 }, at(minutes).getTime());

describe("idle release", () => {
  it("warns once at 90 idle minutes and releases at 120: state released, releasedBecause idle, recorded and audited", async () => {
    const { bookedBy, booking } = await idleBooking();
    const notices: string[] = [];
    const stop = onIdleNotice((notice) => notice.reservationId === booking.id && notices.push(notice.event));
    try {
      await pass(89);
      expect(notices).toEqual([]);
      await pass(90);
      await pass(91);
      expect(notices).toEqual(["reservation.idle_warning"]);
      const warned = await getBooking(bookedBy, booking.id, at(91));
      expect(warned.idle).toMatchObject({ phase: "warning", idleSince: NOW.toISOString(), releaseAt: at(120).toISOString(), keepsLeft: 1 });
      await pass(120);
      expect(notices).toEqual(["reservation.idle_warning", "reservation.idle_released"]);
    } finally {
      stop();
    }
    const view = await getBooking(bookedBy, booking.id, at(121));
    expect(view).toMatchObject({ state: "released", releasedBecause: "idle", endsAt: at(120).toISOString() });
    expect(view.idle).toMatchObject({ phase: "released", idleSince: NOW.toISOString(), releaseAt: at(120).toISOString() });
    const record = await db().idleRelease.findFirstOrThrow({ where: { reservationId: booking.id } });
    expect(record).toMatchObject({ gpuCount: 1, reportOnly: false, scheduledEndAt: at(8 * 60) });
    expect(await db().auditLog.count({ where: { entityId: booking.id, action: "reservation.idle_release", actorId: null } })).toBe(1);
    // The GPU is free from the release on.
    const gpu = await db().reservationGpu.findFirstOrThrow({ where: { reservationId: booking.id } });
    expect(gpu.endsAt).toEqual(at(120));
  });

  it("a restart (a fresh pass, nothing in memory) carries on from the stored minutes and warns no second time", async () => {
    const { booking } = await idleBooking();
    const notices: string[] = [];
    const stop = onIdleNotice((notice) => notice.reservationId === booking.id && notices.push(notice.event));
    try {
      await pass(95);
      // "The server restarts": runIdlePass keeps nothing between calls; the warning's claim is in the row.
      await pass(100);
      expect(notices).toEqual(["reservation.idle_warning"]);
      // Warned at 95 (late): the full 30 minutes of warning run to 125, past the 120 idle minutes.
      await pass(120);
      expect(notices).toEqual(["reservation.idle_warning"]);
      await pass(125);
      expect(notices).toEqual(["reservation.idle_warning", "reservation.idle_released"]);
    } finally {
      stop();
    }
  });

  it("a multi-GPU booking with one busy GPU is not released", async () => {
    const { host, booking } = await idleBooking(2, 0);
    await storeMinutes(host.id, [host.gpus[0].uuid], 0, 150, 0);
    await storeMinutes(host.id, [host.gpus[1].uuid], 0, 150, 60);
    expect(await releaseIdleBooking(booking.id, { now: at(150) })).toEqual({ kind: "skipped", why: "not due" });
  });

  it("a keep starts the clock again, once; the second keep is refused; each keep is audited", async () => {
    const { bookedBy, booking } = await idleBooking(1, 300);
    const kept = await keepBooking(bookedBy, booking.id, { now: at(100) });
    expect(kept.idle).toBeNull();
    expect(await releaseIdleBooking(booking.id, { now: at(150) })).toEqual({ kind: "skipped", why: "not due" });
    expect((await fx.refusal(keepBooking(bookedBy, booking.id, { now: at(200) }))).code).toBe("conflict");
    expect(await db().auditLog.count({ where: { entityId: booking.id, action: "reservation.keep" } })).toBe(1);
    // Two hours idle after the keep, warned 30 minutes before: released.
    expect(await releaseIdleBooking(booking.id, { now: at(220) })).toEqual({ kind: "skipped", why: "not due" });
    await pass(190);
    expect((await releaseIdleBooking(booking.id, { now: at(220) })).kind).toBe("released");
  });

  it("an extension starts the clock again", async () => {
    const { bookedBy, booking } = await idleBooking();
    await changeBookingEnd(bookedBy, booking.id, { addMinutes: 60 }, { now: at(110) });
    expect(await releaseIdleBooking(booking.id, { now: at(150) })).toEqual({ kind: "skipped", why: "not due" });
  });

  it("a release racing an extend, a keep or a manual release: exactly one wins, in every round", async () => {
    for (let round = 0; round < 4; round += 1) {
      for (const rival of ["extend", "keep", "release"] as const) {
        const { bookedBy, booking } = await idleBooking();
        const action =
          rival === "extend"
            ? changeBookingEnd(bookedBy, booking.id, { addMinutes: 30 }, { now: at(150) })
            : rival === "keep"
              ? keepBooking(bookedBy, booking.id, { now: at(150) })
              : releaseBooking(bookedBy, booking.id, { now: at(150) });
        const [idle, other] = await Promise.all([settle(releaseIdleBooking(booking.id, { now: at(150) })), settle(action)]);
        const idleWon = idle.ok && idle.value.kind === "released";
        expect([idleWon, other.ok].filter(Boolean), JSON.stringify({ rival, idle, other })).toHaveLength(1);
        if (!other.ok) expect(other.code).toBe("conflict");
        const row = await db().reservation.findUniqueOrThrow({ where: { id: booking.id }, select: { status: true, releasedBecause: true } });
        expect(row).toEqual(idleWon ? { status: "released", releasedBecause: "idle" } : rival === "release" ? { status: "released", releasedBecause: null } : { status: "booked", releasedBecause: null });
        expect(await db().idleRelease.count({ where: { reservationId: booking.id } })).toBe(idleWon ? 1 : 0);
      }
    }
  });

  it("exemptions (host, person, booking) are never released, and each is audited", async () => {
    for (const kind of ["host", "person", "booking"] as const) {
      const { host, bookedBy, booking } = await idleBooking();
      const subject = kind === "host" ? host.name : kind === "person" ? bookedBy.username : booking.id;
      await addIdleExemption(admin, { kind, subject, reason: "interactive" });
      expect(await releaseIdleBooking(booking.id, { now: at(150) })).toEqual({ kind: "skipped", why: "not due" });
      const view = await getBooking(bookedBy, booking.id, at(150));
      expect(view.idle).toMatchObject({ exempt: true, releaseAt: null });
    }
    expect(await db().auditLog.count({ where: { action: "policy.idle_exemption_add", actorId: admin.id } })).toBeGreaterThanOrEqual(3);
  });

  it("report-only: records what would have been released, once, and releases nothing", async () => {
    await updatePolicy(admin, { maxDurationMinutes: 7 * 24 * 60, maxGpusPerUser: 8, maxAdvanceDays: 30, idleReportOnly: true });
    const { booking } = await idleBooking();
    await pass(100);
    expect((await releaseIdleBooking(booking.id, { now: at(150) })).kind).toBe("reported");
    expect(await releaseIdleBooking(booking.id, { now: at(151) })).toEqual({ kind: "skipped", why: "already reported" });
    expect(await db().reservation.findUniqueOrThrow({ where: { id: booking.id }, select: { status: true } })).toEqual({ status: "booked" });
    expect(await db().idleRelease.count({ where: { reservationId: booking.id, reportOnly: true } })).toBe(1);
  });

  it("a policy made stricter warns the bookings already past its new threshold and gives them the full warning time", async () => {
    const { bookedBy, booking } = await idleBooking();
    const notices: { event: string; releaseAt: string }[] = [];
    const stop = onIdleNotice((notice) => notice.reservationId === booking.id && notices.push({ event: notice.event, releaseAt: notice.releaseAt }));
    try {
      // Idle for an hour under "release after 120 minutes": counting, nothing said yet.
      await pass(60);
      expect(notices).toEqual([]);
      // The admin shortens it to 4 minutes (1 minute of warning): the booking is 56 minutes past it.
      await updatePolicy(admin, { maxDurationMinutes: 7 * 24 * 60, maxGpusPerUser: 8, maxAdvanceDays: 30, idleReleaseAfterMinutes: 4, idleWarningMinutes: 1 });
      await pass(60.5);
      expect(notices).toEqual([{ event: "reservation.idle_warning", releaseAt: at(61.5).toISOString() }]);
      expect((await getBooking(bookedBy, booking.id, at(61))).idle).toMatchObject({ phase: "warning", releaseAt: at(61.5).toISOString() });
      expect(await releaseIdleBooking(booking.id, { now: at(61) })).toEqual({ kind: "skipped", why: "not due" });
      await pass(61);
      expect(notices.map((notice) => notice.event)).toEqual(["reservation.idle_warning"]);
      await pass(61.5);
      expect(notices.map((notice) => notice.event)).toEqual(["reservation.idle_warning", "reservation.idle_released"]);
    } finally {
      stop();
    }
    expect(await getBooking(bookedBy, booking.id, at(62))).toMatchObject({ state: "released", releasedBecause: "idle", endsAt: at(61.5).toISOString() });
  });

  it("a warning of an earlier idle run does not count: the booking used in between is warned again before its release", async () => {
    const { host, booking } = await idleBooking(1, 100);
    const notices: string[] = [];
    const stop = onIdleNotice((notice) => notice.reservationId === booking.id && notices.push(notice.event));
    try {
      await pass(95);
      expect(notices).toEqual(["reservation.idle_warning"]);
      // Used from 100 to 110, then idle again for two hours.
      await storeMinutes(host.id, [host.gpus[0]!.uuid], 100, 110, 80);
      await storeMinutes(host.id, [host.gpus[0]!.uuid], 110, 260, 0);
      // 120 minutes idle again at 230: warned now, released 30 minutes later (the old warning released it at once).
      await pass(230);
      expect(notices).toEqual(["reservation.idle_warning", "reservation.idle_warning"]);
      await pass(259);
      expect(notices).toEqual(["reservation.idle_warning", "reservation.idle_warning"]);
      await pass(260);
      expect(notices).toEqual(["reservation.idle_warning", "reservation.idle_warning", "reservation.idle_released"]);
    } finally {
      stop();
    }
  });

  it("release off (0) releases nothing", async () => {
    await updatePolicy(admin, { maxDurationMinutes: 7 * 24 * 60, maxGpusPerUser: 8, maxAdvanceDays: 30, idleReleaseAfterMinutes: 0 });
    const { booking } = await idleBooking();
    expect(await releaseIdleBooking(booking.id, { now: at(150) })).toEqual({ kind: "skipped", why: "not due" });
  });

  it("a GPU busy in readings not stored yet keeps the booking", async () => {
    const { booking } = await idleBooking();
    expect(await releaseIdleBooking(booking.id, { now: at(150), busyNow: true })).toEqual({ kind: "skipped", why: "not due" });
  });
});
