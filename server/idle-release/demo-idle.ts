import { db } from "@/server/db";
import { bucketStarts } from "@/server/history/resolution";
import { HOUR_MS } from "@/server/history/rollup-math";
import { claimWriteLock, recomputeHours } from "@/server/history/rollup-store";
import { MINUTE_MS } from "@/server/idle-release/idle-rule";
import { writeAudit } from "@/server/reservations/audit-log";
import { readIdlePolicy } from "@/server/reservations/policy";

/** The demo's booking that sits idle (server/fleet/demo-story.ts books it). */
export const DEMO_IDLE_PURPOSE = "demo: kept for debugging";

/**
 * Idle release on the demo fleet, so that a newcomer sees it without
 * waiting two hours, told with stored state as the rule reads it:
 *
 * - the idle-held booking started earlier, and its GPU's minutes since then
 *   are stored idle, so that it is in its warning period now (and released
 *   when the warning runs out, unless someone keeps it);
 * - another demo person's booking of a free GPU was released for idleness
 *   earlier today (in the usage figure and their past bookings).
 */
export async function stageIdleReleaseDemo(now: Date, releasedOn: { hostName: string; gpuIndex: number; userId: string } | null): Promise<void> {
  const policy = await readIdlePolicy(db());
  const after = policy.idleReleaseAfterMinutes > 0 ? policy.idleReleaseAfterMinutes : 120;
  const warning = Math.min(policy.idleWarningMinutes, after);
  const idleMinutes = Math.max(1, after - Math.ceil(warning / 2));
  const nowMinute = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;

  const held = await db().reservation.findFirst({
    where: { purpose: DEMO_IDLE_PURPOSE, status: "booked", endsAt: { gt: now }, user: { simulated: true } },
    select: { id: true, userId: true, hostId: true, gpus: { select: { gpu: { select: { uuid: true } } } } },
  });
  if (held) {
    const startsAt = new Date(nowMinute - idleMinutes * MINUTE_MS);
    await db().$transaction(async (tx) => {
      await tx.reservation.update({ where: { id: held.id }, data: { startsAt } });
      await tx.reservationGpu.updateMany({ where: { reservationId: held.id }, data: { startsAt } });
      for (const { gpu } of held.gpus) {
        for (let minute = startsAt.getTime(); minute < nowMinute; minute += MINUTE_MS) {
          // Booked minutes: the booking's person held them, and their idle job (memory held, 0 %) ran there.
          // Without the holder they read as use without a booking by nobody named on the usage page.
          const row = { gpuUuid: gpu.uuid, minute: new Date(minute), hostId: held.hostId, samples: 12, utilAvg: 0, utilMax: 0, memUsedAvg: 29_696, memUsedMax: 29_696, simulated: true, busy: true, holderUserId: held.userId, attributedUserId: held.userId };
          await tx.gpuMinute.upsert({ where: { gpuUuid_minute: { gpuUuid: gpu.uuid, minute: row.minute } }, create: row, update: {} });
        }
      }
      // The hourly rollups (long ranges of the usage page) count the staged minutes too.
      await claimWriteLock(tx);
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
    const booking = await tx.reservation.create({
      data: {
        userId: releasedOn.userId,
        hostId: gpu.hostId,
        startsAt,
        endsAt: releasedAt,
        purpose: "demo: notebook left open",
        status: "released",
        releasedBecause: "idle",
        gpus: { create: [{ gpuId: gpu.id, startsAt, endsAt: releasedAt }] },
      },
      select: { id: true },
    });
    await tx.idleRelease.create({ data: { reservationId: booking.id, userId: releasedOn.userId, hostId: gpu.hostId, gpuCount: 1, idleSince, at: releasedAt, scheduledEndAt } });
    await writeAudit(tx, { actorId: null, action: "reservation.idle_release", entityType: "reservation", entityId: booking.id, after: { releasedBecause: "idle", idleSince: idleSince.toISOString(), demo: true }, at: releasedAt });
  });
}

