import { MISUSE_ALERT_KINDS, type AlertUpdate } from "@/lib/alerts";
import type { ReservationView } from "@/lib/reservation-types";
import { onAlertChanged } from "@/server/alerts/alert-events";
import { db } from "@/server/db";
import { log } from "@/server/log";
import type { Actor } from "@/server/reservations/actor";
import { findGoneUnits, listOpenBookingsOfUnit } from "@/server/reservations/gone-slices";
import { onInventoryChanged } from "@/server/hosts/inventory-events";
import { unitsPhrase } from "@/lib/gpu-availability";
import { bookedPhrase } from "@/lib/multi-node";
import { notifyPerson, notifyPersonLater } from "@/server/notifications/notify-person";
import { tellOfFailedNode } from "@/server/notifications/node-failure";

/**
 * Tells the holder that someone else (an admin) extended, shortened,
 * released or cancelled their booking. Their own changes tell nothing.
 */
export function tellHolderOfChange(actor: Actor, booking: ReservationView, what: "extended" | "shortened" | "released" | "cancelled"): void {
  if (actor.id === booking.holder.id) return;
  const gpus = bookedPhrase(booking);
  const reason = booking.cancelReason ? ` Reason: ${booking.cancelReason}` : "";
  const until = what === "extended" || what === "shortened" ? `; it now ends at ${booking.endsAt}` : "";
  notifyPersonLater({
    userId: booking.holder.id,
    event: "booking.changed_by_admin",
    subjectId: booking.id,
    title: `${actor.username} ${what} your booking of ${gpus}`,
    text: `${actor.name || actor.username} ${what} your booking "${booking.purpose}" (${gpus})${until}.${reason}`,
    path: "/reservations",
  });
}

/** A conflict on a booked GPU opened: its holder hears of it by their choice (page, mail), once per alert. */
export async function tellHolderOfMisuse(change: AlertUpdate, publicUrl?: string): Promise<void> {
  const { alert } = change;
  if (change.event !== "opened" || !MISUSE_ALERT_KINDS.includes(alert.kind) || !alert.reservationId) return;
  const booking = await db().reservation.findUnique({ where: { id: alert.reservationId }, select: { userId: true } });
  if (!booking) return;
  await notifyPerson(
    { userId: booking.userId, event: "booking.conflict", subjectId: alert.id, title: "Someone else is using a GPU you booked", text: alert.message, path: "/alerts", onceKey: `booking.conflict:${alert.id}` },
    { publicUrl },
  );
}

/**
 * A booked unit is gone from its host (a MIG slice its GPU's new layout
 * destroyed, or a GPU that fell off the bus): the holder of every booking
 * still running or to come on it hears of it, once per alert and booking,
 * to book another. The bookings are read from the database, not the alert,
 * so none is missed.
 */
export async function tellHoldersOfLostUnit(change: AlertUpdate, publicUrl?: string, now = new Date()): Promise<number> {
  const { alert } = change;
  const uuid = alert.gpu?.uuid;
  if (change.event !== "opened" || alert.kind !== "gpu_lost" || !uuid) return 0;
  const bookings = await listOpenBookingsOfUnit(db(), uuid, now);
  let told = 0;
  for (const booking of bookings) {
    const slice = uuid.startsWith("MIG-");
    const what = slice ? `A MIG slice of GPU ${alert.gpu?.index ?? "?"}` : `GPU ${alert.gpu?.index ?? "?"}`;
    const result = await notifyPerson(
      {
        userId: booking.userId,
        event: "booking.unit_gone",
        subjectId: booking.id,
        title: `${what} you booked on ${booking.hostName} is gone`,
        text: `${alert.message}. Your booking "${booking.purpose}" (${booking.startsAt.toISOString()} – ${booking.endsAt.toISOString()}) cannot be used as it is: book another ${slice ? "slice" : "GPU"}.`,
        path: "/reservations",
        onceKey: `booking.unit_gone:${alert.id}:${booking.id}`,
        now,
      },
      { publicUrl },
    );
    if (!result.repeated) told += 1;
  }
  return told;
}

/**
 * A host's MIG layout changed: the holder of every booking still running or
 * to come on a GPU of it that is split into slices now hears that the GPU
 * is no longer a unit (once per booking and GPU), to book slices or another
 * GPU. A slice destroyed by a layout change is told by its gpu_lost alert
 * (`tellHoldersOfLostUnit`); admins see both flagged on the bookings page.
 */
export async function tellHoldersOfSplitGpus(hostId: string, publicUrl?: string, now = new Date()): Promise<number> {
  const gone = await findGoneUnits(db(), [hostId]);
  if (gone.size === 0) return 0;
  const rows = await db().reservation.findMany({
    where: { hostId, status: "booked", endsAt: { gt: now }, gpus: { some: { gpu: { uuid: { in: [...gone] }, migDeviceIndex: null } } } },
    orderBy: [{ startsAt: "asc" }],
    select: { id: true, userId: true, startsAt: true, endsAt: true, purpose: true, host: { select: { name: true } }, gpus: { select: { gpu: { select: { uuid: true, index: true, migDeviceIndex: true } } } } },
  });
  let told = 0;
  for (const booking of rows) {
    if (booking.endsAt <= booking.startsAt) continue;
    const split = booking.gpus.map(({ gpu }) => gpu).filter((gpu) => gpu.migDeviceIndex === null && gone.has(gpu.uuid));
    const what = unitsPhrase(split);
    const result = await notifyPerson(
      {
        userId: booking.userId,
        event: "booking.unit_gone",
        subjectId: booking.id,
        title: `${what} you booked on ${booking.host.name} is split into MIG slices`,
        text: `${what} on ${booking.host.name} was split into MIG slices, so it cannot be used whole. Your booking "${booking.purpose}" (${booking.startsAt.toISOString()} – ${booking.endsAt.toISOString()}) cannot be used as it is: book a slice or another GPU.`,
        path: "/reservations",
        onceKey: `booking.unit_gone:split:${booking.id}:${split.map((gpu) => gpu.uuid).join(",")}`,
        now,
      },
      { publicUrl },
    );
    if (!result.repeated) told += 1;
  }
  return told;
}

/** The leader's listeners: alerts open there, and layout changes stored there. */
export function startMisuseNotices(options: { publicUrl?: string } = {}): () => void {
  const stopLayout = onInventoryChanged(({ hostId }) => {
    tellHoldersOfSplitGpus(hostId, options.publicUrl).catch((error: unknown) =>
      log.error(`could not tell the holders of split GPUs on host ${hostId}: ${error instanceof Error ? error.message : String(error)}`),
    );
  });
  const stopAlerts = onAlertChanged((change) => {
    tellHolderOfMisuse(change, options.publicUrl).catch((error: unknown) =>
      log.error(`could not tell the holder of alert ${change.alert.id}: ${error instanceof Error ? error.message : String(error)}`),
    );
    tellHoldersOfLostUnit(change, options.publicUrl).catch((error: unknown) =>
      log.error(`could not tell the holders of lost unit ${change.alert.gpu?.uuid}: ${error instanceof Error ? error.message : String(error)}`),
    );
    tellOfFailedNode(change, options.publicUrl).catch((error: unknown) =>
      log.error(`could not tell of the failed node of alert ${change.alert.id}: ${error instanceof Error ? error.message : String(error)}`),
    );
  });
  return () => {
    stopLayout();
    stopAlerts();
  };
}
