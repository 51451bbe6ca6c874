import { MISUSE_ALERT_KINDS, type AlertUpdate } from "@/lib/domain/alerts";
import type { BookingView } from "@/lib/domain/booking-types";
import { onAlertChanged } from "@/server/alerts/alert-events";
import { db } from "@/server/core/db";
import { periodicJob, type JobTimers } from "@/server/core/jobs";
import { log } from "@/server/core/log";
import type { Actor } from "@/server/access/actor";
import type { BookingChangeRecord } from "@/server/bookings/backends/booking-backend";
import { onBookingsChanged } from "@/server/bookings/store/booking-events";
import { getBookingView } from "@/server/bookings/views/list-bookings";
import { readBookingOwner } from "@/server/bookings/store/booking-parts";
import { readHostsWithOpenBookings, readOpenBookingsOnUnits } from "@/server/bookings/store/notice-reads";
import { onSlurmReservationMissing, type SlurmReservationMissing } from "@/server/bookings/slurm/slurm-events";
import { findGoneUnits, listOpenBookingsOfUnit } from "@/server/bookings/views/gone-slices";
import { onInventoryChanged } from "@/server/hosts/inventory-events";
import { isPartitioned, storedUnit, unitName, unitsPhrase, type UnitName } from "@/lib/domain/gpu-availability";
import { bookedPhrase } from "@/lib/domain/multi-node";
import { notifyPerson, notifyPersonLater } from "@/server/notifications/notify-person";
import { tellOfFailedNode } from "@/server/notifications/node-failure";
import type { LiveGpuSource } from "@/server/bookings/placement/gpu-in-use";

/**
 * Tells the booker that someone else (an admin) extended, shortened,
 * released or cancelled their booking. Their own changes tell nothing.
 */
export function tellBookerOfChange(actor: Actor, booking: BookingView, what: "extended" | "shortened" | "released" | "cancelled"): void {
  if (actor.id === booking.bookedBy.id) return;
  const gpus = bookedPhrase(booking);
  const reason = booking.cancelReason ? ` Reason: ${booking.cancelReason}` : "";
  const until = what === "extended" || what === "shortened" ? `; it now ends at ${booking.endsAt}` : "";
  notifyPersonLater({
    userId: booking.bookedBy.id,
    event: "booking.changed_by_admin",
    subjectId: booking.id,
    title: `${actor.username} ${what} your booking of ${gpus}`,
    text: `${actor.name || actor.username} ${what} your booking "${booking.purpose}" (${gpus})${until}.${reason}`,
    path: "/reservations",
  });
}

/** A conflict on a booked GPU opened: its booker hears of it by their choice (page, mail), once per alert. */
export async function tellBookerOfMisuse(change: AlertUpdate, publicUrl?: string): Promise<void> {
  const { alert } = change;
  if (change.event !== "opened" || !MISUSE_ALERT_KINDS.includes(alert.kind) || !alert.reservationId) return;
  const booking = await readBookingOwner(db(), alert.reservationId);
  if (!booking) return;
  await notifyPerson(
    { userId: booking.userId, event: "booking.conflict", subjectId: alert.id, title: "Someone else is using a GPU you booked", text: alert.message, path: "/alerts", onceKey: `booking.conflict:${alert.id}` },
    { publicUrl },
  );
}

/** A booking still running or to come on a unit that is gone, as the notice about it needs it. */
interface BookingOnGoneUnit {
  id: string;
  userId: string;
  startsAt: Date;
  endsAt: Date;
  purpose: string;
  hostName: string;
}

/**
 * Tells the booker of one booking that one of its units is gone (`why`),
 * once per booking and unit whichever path sees it first: the gpu_lost
 * alert, the sweep of the stored inventory, after a restart or on another
 * instance. The key is stored with the notice (notifyPerson's onceKey).
 */
async function tellBookerOfGoneUnit(booking: BookingOnGoneUnit, unit: UnitName & { uuid: string }, why: string, publicUrl: string | undefined, now: Date): Promise<boolean> {
  const name = unitName(unit);
  const result = await notifyPerson(
    {
      userId: booking.userId,
      event: "booking.unit_gone",
      subjectId: booking.id,
      title: `${name} you booked on ${booking.hostName} is gone`,
      text: `${why}. Your booking "${booking.purpose}" (${booking.startsAt.toISOString()} – ${booking.endsAt.toISOString()}) cannot be used as it is: book ${unit.mig ? "another slice" : "a slice or another GPU"}.`,
      path: "/reservations",
      onceKey: `booking.unit_gone:${booking.id}:${unit.uuid}`,
      now,
    },
    { publicUrl },
  );
  return !result.repeated;
}

/**
 * A booked unit is gone from its host (a MIG slice its GPU's new layout
 * destroyed, or a GPU that fell off the bus): the booker of every booking
 * still running or to come on it hears of it, with the alert's words, to
 * book another. The bookings are read from the database, not the alert,
 * so none is missed.
 */
export async function tellBookersOfLostUnit(change: AlertUpdate, publicUrl?: string, now = new Date()): Promise<number> {
  const { alert } = change;
  const uuid = alert.gpu?.uuid;
  if (change.event !== "opened" || alert.kind !== "gpu_lost" || !uuid) return 0;
  const row = await db().gpu.findFirst({ where: { uuid }, select: { index: true, migDeviceIndex: true, migProfile: true } });
  const unit = { uuid, ...(row ? storedUnit(row) : { index: alert.gpu?.index ?? 0 }) };
  let told = 0;
  for (const booking of await listOpenBookingsOfUnit(db(), uuid, now)) {
    if (await tellBookerOfGoneUnit(booking, unit, alert.message, publicUrl, now)) told += 1;
  }
  return told;
}

/**
 * A MIG layout changed under bookings: the booker of every booking still
 * running or to come on a unit that is no unit of its host now hears of it,
 * once per booking and unit: a GPU split into slices since it was booked
 * whole, or a slice whose GPU is whole again or split another way. Derived
 * from the stored inventory and bookings (`findGoneUnits`), not from the
 * moment the layout changed, so the leader's sweep finds what changed on
 * another instance or while no leader ran, and never tells twice.
 */
export async function tellBookersOfGoneUnits(publicUrl?: string, now = new Date(), hostIds?: string[]): Promise<number> {
  const gone = await findGoneUnits(db(), await readHostsWithOpenBookings(now, hostIds));
  if (gone.size === 0) return 0;
  const rows = await readOpenBookingsOnUnits(now, [...gone]);
  const parentUuids = rows.flatMap((row) => row.gpus.flatMap(({ gpu }) => (gpu.parentUuid ? [gpu.parentUuid] : [])));
  const parents = new Map((await db().gpu.findMany({ where: { uuid: { in: parentUuids } }, select: { uuid: true, index: true, migMode: true } })).map((gpu) => [gpu.uuid, gpu]));
  let told = 0;
  for (const { host, gpus, ...booking } of rows) {
    if (booking.endsAt <= booking.startsAt) continue;
    for (const { gpu } of gpus) {
      if (!gone.has(gpu.uuid)) continue;
      const unit = { uuid: gpu.uuid, ...storedUnit(gpu) };
      const parent = gpu.parentUuid ? parents.get(gpu.parentUuid) : undefined;
      const why = !unit.mig
        ? `${unitName(unit)} on ${host.name} was split into MIG slices, so it cannot be used whole`
        : `${unitName(unit)} on ${host.name} is gone: GPU ${unit.index}'s MIG layout changed (${parent && isPartitioned({ index: parent.index, migMode: parent.migMode }) ? "it is split into other slices" : "it is whole again"})`;
      if (await tellBookerOfGoneUnit({ ...booking, hostName: host.name }, unit, why, publicUrl, now)) told += 1;
    }
  }
  return told;
}

/** How often the leader looks for bookings on gone units: a layout stored by another instance is told within this. */
const GONE_UNITS_SWEEP_MS = 30_000;

/**
 * Slurm no longer holds a booking's reservation and would not take it back
 * (a job took the GPUs meanwhile): the booker hears of it once, when the
 * reconciler marks the booking "missing" (not on each pass while it stays so).
 */
export async function tellBookerOfMissingSlurmReservation(event: SlurmReservationMissing, publicUrl?: string): Promise<void> {
  const hosts = [...new Set(event.hostNames)].join(", ");
  await notifyPerson(
    {
      userId: event.userId,
      event: "booking.slurm_missing",
      subjectId: event.bookingId,
      title: `Slurm no longer holds your booking on ${hosts}`,
      text: `Your booking "${event.purpose}" on ${hosts} has lost its Slurm reservation ${event.reservation}, and Slurm would not make it again: ${event.reason}. Jobs with --reservation=${event.reservation} will not start; gpudesk tries again every 30 seconds.`,
      path: "/reservations",
      onceKey: `booking.slurm_missing:${event.bookingId}:${event.at.getTime()}`,
      now: event.at,
    },
    { publicUrl },
  );
}

/** The leader's reconciler announces a reservation gone missing; its booker is told (server/bookings/slurm/slurm-events.ts). */
export function listenForMissingSlurmReservations(publicUrl?: string): () => void {
  return onSlurmReservationMissing((event) =>
    void tellBookerOfMissingSlurmReservation(event, publicUrl).catch((error: unknown) =>
      log.error(`could not tell the booker of booking ${event.bookingId} that its Slurm reservation is missing: ${error instanceof Error ? error.message : String(error)}`),
    ),
  );
}

/** What a booker is told of: a person's change or end of the booking (idle release, a keep or a new booking tell nothing here). */
function changeToTell(change: BookingChangeRecord): { by: Actor; what: "extended" | "shortened" | "released" | "cancelled" } | null {
  if (!change.by) return null;
  if (change.kind === "changed") return { by: change.by, what: change.how };
  if (change.kind === "ended" && change.how !== "idle-released") return { by: change.by, what: change.how };
  return null;
}

/**
 * Tells a booking's person of a change someone else made: a follower of the
 * bookings' one channel (every instance hears the changes made there; those
 * made elsewhere were told there). The booking is read as it is after the commit.
 */
export function listenForBookingChanges(): () => void {
  return onBookingsChanged((event) => {
    if (event.kind !== "booking") return;
    const tell = changeToTell(event.change);
    if (!tell) return;
    const { bookingId } = event.change;
    void getBookingView(db(), bookingId, Date.now(), tell.by.id)
      .then((booking) => tellBookerOfChange(tell.by, booking, tell.what))
      .catch((error: unknown) => log.error(`could not tell the booker of booking ${bookingId} of its change: ${error instanceof Error ? error.message : String(error)}`));
  });
}

/** The leader's listeners: alerts open there, layout changes stored there, and a sweep of the stored layouts for those stored elsewhere. */
export function startMisuseNotices(
  options: { publicUrl?: string; sweepEveryMs?: number; liveFleet?: () => LiveGpuSource | undefined; timers?: JobTimers } = {},
): () => Promise<void> {
  // A layout stored here is told at once; one stored by another instance (or before this one led) by the sweep.
  const stopLayout = onInventoryChanged(({ hostId }) =>
    void tellBookersOfGoneUnits(options.publicUrl, new Date(), [hostId]).catch((error: unknown) =>
      log.error(`could not tell the bookers of bookings on host ${hostId}'s gone units: ${error instanceof Error ? error.message : String(error)}`),
    ),
  );
  const stopSweep = periodicJob({
    name: "sweep for bookings on gone units",
    everyMs: options.sweepEveryMs ?? GONE_UNITS_SWEEP_MS,
    timers: options.timers,
    run: () => tellBookersOfGoneUnits(options.publicUrl, new Date()).then(() => undefined),
  }).start();
  const stopAlerts = onAlertChanged((change) => {
    tellBookerOfMisuse(change, options.publicUrl).catch((error: unknown) =>
      log.error(`could not tell the booker of alert ${change.alert.id}: ${error instanceof Error ? error.message : String(error)}`),
    );
    tellBookersOfLostUnit(change, options.publicUrl).catch((error: unknown) =>
      log.error(`could not tell the bookers of lost unit ${change.alert.gpu?.uuid}: ${error instanceof Error ? error.message : String(error)}`),
    );
    tellOfFailedNode(change, options.publicUrl, new Date(), options.liveFleet?.()).catch((error: unknown) =>
      log.error(`could not tell of the failed node of alert ${change.alert.id}: ${error instanceof Error ? error.message : String(error)}`),
    );
  });
  return async () => {
    stopLayout();
    stopAlerts();
    await stopSweep();
  };
}
