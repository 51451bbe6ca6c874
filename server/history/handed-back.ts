import { gpuShareOf } from "@/lib/domain/gpu-share";
import { db } from "@/server/core/db";
import { bookingIdsOf } from "@/server/bookings/store/named-bookings";
import { readUnitSharesOfParts } from "@/server/bookings/store/booked-units";

/** What idle release handed back of one person's bookings on one host, by releases in a range. */
export interface HandedBackTime {
  bookedBy: string;
  host: string;
  /** GPUs' worth × the time from each release to the end its booking had. */
  gpuHours: number;
  releases: number;
}

/**
 * The idle releases in [fromMs, toMs) (of one person with `userId`), per
 * person and host, for the usage cells (server/history/usage-cells.ts):
 * each release counts its host's units of the booking (a MIG slice weighs
 * its share of its GPU, lib/domain/gpu-share.ts; a release whose units are no
 * longer stored counts its GPU count) times the time from the release to
 * the end the booking had. Report-only entries handed nothing back. A
 * booking across nodes counts one release (it was released once, whole).
 */
export async function handedBackTimes(fromMs: number, toMs: number, userId?: string): Promise<HandedBackTime[]> {
  const rows = await db().idleRelease.findMany({
    where: { reportOnly: false, at: { gte: new Date(fromMs), lt: new Date(toMs) }, ...(userId === undefined ? {} : { userId }) },
    select: { reservationId: true, userId: true, hostId: true, gpuCount: true, at: true, scheduledEndAt: true },
  });
  if (rows.length === 0) return [];
  const units = await readUnitSharesOfParts(db(), [...new Set(rows.map((row) => row.reservationId))]);
  // A booking across hosts is released per host: each release weighs the units on its own host.
  const weightOf = new Map<string, number>();
  for (const unit of units) {
    const key = `${unit.reservationId}\u0000${unit.gpu.hostId}`;
    weightOf.set(key, (weightOf.get(key) ?? 0) + gpuShareOf(unit.gpu));
  }
  // A booking across nodes is released once, whole: each part's host has its hours, the release counts once (on node 0's host).
  const bookingOf = await bookingIdsOf(db(), [...new Set(rows.map((row) => row.reservationId))]);
  const cells = new Map<string, HandedBackTime>();
  for (const row of rows) {
    const gpus = weightOf.get(`${row.reservationId}\u0000${row.hostId}`) ?? row.gpuCount;
    const key = `${row.userId}\u0000${row.hostId}`;
    const cell = cells.get(key) ?? { bookedBy: row.userId, host: row.hostId, gpuHours: 0, releases: 0 };
    cell.gpuHours += (gpus * Math.max(0, row.scheduledEndAt.getTime() - row.at.getTime())) / 3_600_000;
    if ((bookingOf.get(row.reservationId) ?? row.reservationId) === row.reservationId) cell.releases += 1;
    cells.set(key, cell);
  }
  return [...cells.values()];
}
