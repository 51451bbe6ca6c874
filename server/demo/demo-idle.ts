import { db } from "@/server/core/db";
import { bucketStarts } from "@/server/history/resolution";
import { HOUR_MS } from "@/server/minutes/minute-row";
import { insertMissingMinuteRows, recomputeHours } from "@/server/history/rollup-store";
import type { MinuteRow } from "@/server/minutes/minute-row";
import { MINUTE_MS } from "@/server/bookings/rules/idle-rule";
import { writeAudit } from "@/server/access/audit-log";
import { readIdlePolicy } from "@/server/bookings/rules/policy";
import { moveStartOfBooking } from "@/server/bookings/store/booking-writes";
import { createIdleReleasedBooking, readStagedDemoBookings } from "@/server/bookings/store/demo-bookings";

/** The demo's booking that sits idle (server/demo/demo-story.ts books it). */
export const DEMO_IDLE_PURPOSE = "demo: kept for debugging";
/** The demo's booked MIG slice with nothing on it (server/demo/demo-story.ts books it). */
export const DEMO_IDLE_SLICE_PURPOSE = "demo: slice booked, job not started yet";

/**
 * Idle release on the demo fleet, so that a newcomer sees it without
 * waiting two hours, told with stored state as the rule reads it:
 *
 * - the idle-held booking and the booked empty MIG slice started earlier,
 *   and their units' minutes since then are stored idle (a GPU at 0 % with
 *   its booker's idle job; a slice with no process and no memory held), so
 *   that both are in their warning period now (and released when the
 *   warning runs out, unless someone keeps them);
 * - another demo person's booking of a free GPU was released for idleness
 *   earlier today (in the usage figure and their past bookings).
 */
export async function stageIdleReleaseDemo(now: Date, releasedOn: { hostName: string; gpuIndex: number; userId: string } | null): Promise<void> {
  const policy = await readIdlePolicy(db());
  const after = policy.idleReleaseAfterMinutes > 0 ? policy.idleReleaseAfterMinutes : 120;
  const warning = Math.min(policy.idleWarningMinutes, after);
  const idleMinutes = Math.max(1, after - Math.ceil(warning / 2));
  const nowMinute = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;

  const staged = await readStagedDemoBookings([DEMO_IDLE_PURPOSE, DEMO_IDLE_SLICE_PURPOSE], now);
  for (const held of staged) {
    const startsAt = new Date(nowMinute - idleMinutes * MINUTE_MS);
    await db().$transaction(async (tx) => {
      await moveStartOfBooking(tx, held.id, startsAt);
      const rows: MinuteRow[] = [];
      for (const { gpu } of held.gpus) {
        for (let minute = startsAt.getTime(); minute < nowMinute; minute += MINUTE_MS) {
          // Booked minutes: the booking's person held them. On the GPU their idle job (memory held, 0 %) ran there;
          // a slice reads no utilization, no process and the few MiB an empty MIG device reports.
          // Without the booker they read as use without a booking by nobody named on the usage page.
          const reading = gpu.migDeviceIndex === null
            ? { utilAvg: 0, utilMax: 0, memUsedAvg: 29_696, memUsedMax: 29_696, memTotal: null, busy: true, runnerUserId: held.userId }
            : { utilAvg: null, utilMax: null, memUsedAvg: 17, memUsedMax: 17, memTotal: gpu.memoryTotalMiB, busy: false, runnerUserId: null };
          rows.push({ gpuUuid: gpu.uuid, minute: new Date(minute), hostId: held.hostId, samples: 12, simulated: true, bookedByUserId: held.userId, powerAvg: null, tempAvg: null, tempMax: null, ...reading });
        }
      }
      // Minutes already stored stay as they are; the write lock is taken there.
      await insertMissingMinuteRows(tx, rows);
      // The hourly rollups (long ranges of the usage page) count the staged minutes too.
      await recomputeHours(tx, bucketStarts(startsAt.getTime(), nowMinute, HOUR_MS), held.gpus.map(({ gpu }) => gpu.uuid));
    });
  }

  if (!releasedOn) return;
  const gpu = await db().gpu.findFirst({ where: { host: { name: releasedOn.hostName }, index: releasedOn.gpuIndex }, select: { id: true, hostId: true } });
  if (!gpu) return;
  const startsAt = new Date(nowMinute - 5 * 60 * MINUTE_MS);
  const idleSince = new Date(startsAt.getTime() + 20 * MINUTE_MS);
  const releasedAt = new Date(idleSince.getTime() + after * MINUTE_MS);
  const scheduledEndAt = new Date(startsAt.getTime() + 8 * 60 * MINUTE_MS);
  await db().$transaction(async (tx) => {
    const bookingId = await createIdleReleasedBooking(tx, { userId: releasedOn.userId, hostId: gpu.hostId, gpuId: gpu.id, startsAt, releasedAt, purpose: "demo: notebook left open" });
    await tx.idleRelease.create({ data: { reservationId: bookingId, userId: releasedOn.userId, hostId: gpu.hostId, gpuCount: 1, idleSince, at: releasedAt, scheduledEndAt } });
    await writeAudit(tx, { actorId: null, action: "reservation.idle_release", entityType: "reservation", entityId: bookingId, after: { releasedBecause: "idle", idleSince: idleSince.toISOString(), demo: true }, at: releasedAt });
  });
}

