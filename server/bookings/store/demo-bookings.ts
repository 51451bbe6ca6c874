import type { Prisma } from "@prisma/client";
import { db } from "@/server/core/db";

/** How many bookings of the demo's people hold GPUs now or later: a restarted demo books its story only when none does. */
export async function countCurrentDemoBookings(now: Date): Promise<number> {
  return db().reservation.count({ where: { status: "booked", endsAt: { gt: now }, user: { simulated: true } } });
}

/** The demo's current bookings with these purposes (its idle-release story), with what their staged minutes need. */
export async function readStagedDemoBookings(purposes: string[], now: Date) {
  return db().reservation.findMany({
    where: { purpose: { in: purposes }, status: "booked", endsAt: { gt: now }, user: { simulated: true } },
    select: { id: true, userId: true, hostId: true, gpus: { select: { gpu: { select: { uuid: true, migDeviceIndex: true, memoryTotalMiB: true } } } } },
  });
}

/** A past booking of one GPU that idle release ended (the demo's "released earlier today"). Returns its id. */
export async function createIdleReleasedBooking(
  tx: Prisma.TransactionClient,
  booking: { userId: string; hostId: string; gpuId: string; startsAt: Date; releasedAt: Date; purpose: string },
): Promise<string> {
  const { gpuId, releasedAt, ...rest } = booking;
  const row = await tx.reservation.create({
    data: { ...rest, endsAt: releasedAt, status: "released", releasedBecause: "idle", gpus: { create: [{ gpuId, startsAt: booking.startsAt, endsAt: releasedAt }] } },
    select: { id: true },
  });
  return row.id;
}
