import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeMinuteRow, NO_READINGS } from "@/server/testing/factories";
import type { MinuteRow } from "@/server/minutes/minute-row";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Idle release judges a booking across nodes as a whole, on SQLite and
 * PostgreSQL: idle only when every unit of every part is, warned once,
 * released whole.
 */

type Fixtures = typeof import("@/server/testing/booking-fixtures");
let fx: Fixtures;
let db: typeof import("@/server/core/db").db;
let createMultiNodeBooking: typeof import("@/server/bookings/commands/create-multi-node").createMultiNodeBooking;
let runIdlePass: typeof import("@/server/idle-release/idle-runner").runIdlePass;
let onIdleNotice: typeof import("@/server/idle-release/notify-idle").onIdleNotice;
let updatePolicy: typeof import("@/server/bookings/rules/policy").updatePolicy;

const NOW = new Date("2026-12-01T10:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

beforeAll(async () => {
  await useTestDatabase();
  fx = await import("@/server/testing/booking-fixtures");
  ({ db } = await import("@/server/core/db"));
  ({ createMultiNodeBooking } = await import("@/server/bookings/commands/create-multi-node"));
  ({ runIdlePass } = await import("@/server/idle-release/idle-runner"));
  ({ onIdleNotice } = await import("@/server/idle-release/notify-idle"));
  ({ updatePolicy } = await import("@/server/bookings/rules/policy"));
}, 120_000);

beforeEach(async () => {
  const admin = await fx.createTestUser("admin", "idleadmin");
  await updatePolicy(admin, { maxDurationMinutes: 7 * 24 * 60, maxGpusPerUser: 8, maxAdvanceDays: 30, idleReleaseAfterMinutes: 120, idleWarningMinutes: 30, idleBelowPct: 5, idleKeepsPerBooking: 1, idleReportOnly: false });
});

/** Stored minute rollups of a host's GPUs for minutes [from, to) after NOW, at `util`. */
async function storeMinutes(host: { id: string; gpus: { uuid: string }[] }, from: number, to: number, util: number): Promise<void> {
  const data: MinuteRow[] = [];
  for (let minute = from; minute < to; minute += 1) {
    for (const gpu of host.gpus) data.push(makeMinuteRow(gpu.uuid, host.id, at(minute).getTime(), { ...NO_READINGS, samples: 12, utilAvg: util, utilMax: util, memUsedAvg: 29_000, memUsedMax: 29_000 }));
  }
  const { upsertMinuteRows } = await import("@/server/history/rollup-store");
  await upsertMinuteRows(db(), data);
}

const pass = (minutes: number) => runIdlePass({ liveGpus: () => [], alertHoldMinutes: 30 }, at(minutes).getTime());

describe("idle release of a booking across nodes", () => {
  it("waits for the last busy part, warns once for the booking, then releases every part in one act", async () => {
    const [a, b] = [await fx.createTestHost(2), await fx.createTestHost(2)];
    const bookedBy = await fx.createTestUser();
    const booking = await createMultiNodeBooking(bookedBy, { parts: [{ host: a.name, gpus: [0, 1] }, { host: b.name, gpus: [0, 1] }], durationMinutes: 8 * 60, purpose: "ddp" }, { now: NOW });
    const ids = booking.parts.map((part) => part.id);
    // Node a idles from the start; node b computes for its first hour.
    await storeMinutes(a, 0, 200, 0);
    await storeMinutes(b, 0, 60, 90);
    await storeMinutes(b, 60, 200, 0);
    const notices: { event: string; reservationId: string; units: string }[] = [];
    const stop = onIdleNotice((notice) => ids.includes(notice.reservationId) && notices.push({ event: notice.event, reservationId: notice.reservationId, units: `${notice.units} on ${notice.hostName}` }));
    try {
      // Node a alone has been idle 130 minutes: past the release; the booking has been idle 70.
      const early = await pass(130);
      expect(early.get(ids[0])).toMatchObject({ phase: "idle", idleSinceMs: at(60).getTime() });
      expect(early.get(ids[1])).toMatchObject({ phase: "idle", idleSinceMs: at(60).getTime() });
      expect(notices).toEqual([]);
      expect(await db().reservation.count({ where: { id: { in: ids }, status: "booked" } })).toBe(2);

      await pass(150);
      await pass(151);
      expect(notices).toEqual([{ event: "reservation.idle_warning", reservationId: ids[0], units: `2 × 2 H100 on ${a.name} and ${b.name}` }]);

      await pass(180);
      expect(notices.map((notice) => notice.event)).toEqual(["reservation.idle_warning", "reservation.idle_released"]);
      const rows = await db().reservation.findMany({ where: { id: { in: ids } }, select: { status: true, releasedBecause: true, endsAt: true } });
      expect(rows).toEqual([
        { status: "released", releasedBecause: "idle", endsAt: at(180) },
        { status: "released", releasedBecause: "idle", endsAt: at(180) },
      ]);
      const audit = await db().auditLog.findMany({ where: { action: "reservation.idle_release", entityId: { in: ids } } });
      expect(audit).toHaveLength(1);
      // The audit names the booking once with every node (it named node 1's host and units).
      expect(JSON.parse(audit[0].after ?? "{}")).toMatchObject({ booking: `2 × 2 H100 on ${a.name} and ${b.name}`, parts: ids });
      // Handed back: each node's hours on its host, one release for the booking (it counted one per node).
      const { handedBackTimes } = await import("@/server/history/handed-back");
      const handed = (await handedBackTimes(at(0).getTime(), at(300).getTime(), bookedBy.id)).sort((x, y) => (x.host === a.id ? -1 : y.host === a.id ? 1 : 0));
      expect(handed.map((cell) => [cell.host, cell.releases, Math.round(cell.gpuHours * 10) / 10])).toEqual([
        [a.id, 1, 10],
        [b.id, 0, 10],
      ]);
    } finally {
      stop();
    }
  });

  it("one standing per booking on every surface: a kept booking shows no node idle while another node works, and one Keep keeps every part", async () => {
    const [a, b] = [await fx.createTestHost(2), await fx.createTestHost(2)];
    const bookedBy = await fx.createTestUser();
    const booking = await createMultiNodeBooking(bookedBy, { parts: [{ host: a.name, gpus: [0, 1] }, { host: b.name, gpus: [0, 1] }], durationMinutes: 10 * 60, purpose: "kept" }, { now: NOW });
    const ids = booking.parts.map((part) => part.id);
    const { getBookingView } = await import("@/server/bookings/views/list-bookings");
    const { idleWarningsOf } = await import("@/server/bookings/views/idle-views");
    const { keepBooking } = await import("@/server/bookings/commands/keep-booking");
    const views = async (minutes: number) => Promise.all(ids.map((id) => getBookingView(db(), id, at(minutes).getTime(), bookedBy.id)));

    // Both nodes idle: warned once, and every part's view says the same warning.
    await storeMinutes(a, 0, 600, 0);
    await storeMinutes(b, 0, 100, 0);
    await pass(100);
    const warned = await views(100);
    expect(warned.map((view) => view.idle?.phase)).toEqual(["warning", "warning"]);
    expect(new Set(warned.map((view) => view.idle?.releaseAt)).size).toBe(1);

    // One Keep, through node 2's id, keeps the whole booking: no part is idle now.
    await keepBooking(bookedBy, ids[1], { now: at(100) });
    expect((await views(101)).map((view) => view.idle)).toEqual([null, null]);
    const rows = await db().reservation.findMany({ where: { id: { in: ids } }, select: { idleKeepsUsed: true, idleWarnedAt: true, idleClockAt: true } });
    expect(rows).toEqual([
      { idleKeepsUsed: 1, idleWarnedAt: null, idleClockAt: at(100) },
      { idleKeepsUsed: 1, idleWarnedAt: null, idleClockAt: at(100) },
    ]);

    // Node 2 works from the keep on; node 1 stays idle, past the release on its own. The booking is not idle,
    // so no node says "released at … unless used" (node 1 did, re-dated every minute).
    await storeMinutes(b, 100, 600, 80);
    for (const minutes of [250, 251]) {
      expect((await views(minutes)).map((view) => view.idle)).toEqual([null, null]);
      expect((await idleWarningsOf(db(), ids, at(minutes).getTime())).size).toBe(0);
      expect([...(await pass(minutes)).values()].filter((standing) => ids.includes(standing.reservationId)).map((standing) => standing.phase)).toEqual(["none", "none"]);
    }
    expect(await db().reservation.count({ where: { id: { in: ids }, status: "booked" } })).toBe(2);
  });
});
