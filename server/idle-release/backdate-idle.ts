import { db } from "@/server/core/db";
import { bucketStarts } from "@/server/history/resolution";
import { HOUR_MS, type MinuteRow } from "@/server/minutes/minute-row";
import { claimWriteLock, insertMissingMinuteRows, recomputeHours } from "@/server/history/rollup-store";
import { MINUTE_MS } from "@/server/bookings/rules/idle-rule";
import { moveStartOfBooking } from "@/server/bookings/store/booking-writes";
import { readBookingToBackdate, setIdleClock } from "@/server/bookings/store/idle-columns";

/** What the backdated minutes read: an idle job (memory held at 0 %) by default. */
export interface StoredReading {
  utilPct: number;
  memUsedMiB: number;
}

export interface BackdateOptions {
  /** What moves back: the booking's start (default), or its idle clock as if its last keep was `minutes` ago. */
  clock?: "start" | "keep";
  reading?: StoredReading;
}

/**
 * Moves a booking's start (or its last keep) `minutes` whole minutes back
 * and stores those minutes of its units as read, so that every rule reading
 * stored minutes (idle release, the idle alert, usage) finds them as if the
 * time had passed: how tests drive minute-scale rules in seconds against a
 * real server (a second process on its database) instead of waiting for
 * the minutes. Minutes already stored are left as they were. Returns the
 * new start (or keep) time.
 */
export async function backdateBooking(bookingId: string, minutes: number, now: Date, options: BackdateOptions = {}): Promise<Date> {
  const reading = options.reading ?? { utilPct: 0, memUsedMiB: 29_696 };
  const nowMinute = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;
  const startsAt = new Date(nowMinute - minutes * MINUTE_MS);
  const booking = await readBookingToBackdate(bookingId);
  const uuids = booking.gpus.map(({ gpu }) => gpu.uuid);
  const rows: MinuteRow[] = [];
  for (const uuid of uuids) {
    for (let minute = startsAt.getTime(); minute < nowMinute; minute += MINUTE_MS) {
      rows.push({
        gpuUuid: uuid,
        minute: new Date(minute),
        hostId: booking.hostId,
        samples: 12,
        utilAvg: reading.utilPct,
        utilMax: reading.utilPct,
        memUsedAvg: reading.memUsedMiB,
        memUsedMax: reading.memUsedMiB,
        memTotal: null,
        powerAvg: null,
        tempAvg: null,
        tempMax: null,
        // The booking's person held them and their job ran there: without them the minutes read as use without a booking.
        bookedByUserId: booking.userId,
        runnerUserId: booking.userId,
        busy: true,
        simulated: false,
      });
    }
  }
  await db().$transaction(async (tx) => {
    // A keep `minutes` ago means the booking had started by then too.
    if (options.clock === "keep") await setIdleClock(tx, bookingId, startsAt);
    if (options.clock !== "keep" || booking.startsAt > startsAt) await moveStartOfBooking(tx, bookingId, startsAt);
    await insertMissingMinuteRows(tx, rows);
    // The hourly rollups (long ranges of the usage page) count these minutes too.
    await claimWriteLock(tx);
    await recomputeHours(tx, bucketStarts(startsAt.getTime(), nowMinute, HOUR_MS), uuids);
  });
  return startsAt;
}
