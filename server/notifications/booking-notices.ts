import { MISUSE_ALERT_KINDS, type AlertUpdate } from "@/lib/alerts";
import type { ReservationView } from "@/lib/reservation-types";
import { onAlertChanged } from "@/server/alerts/alert-events";
import { db } from "@/server/db";
import { log } from "@/server/log";
import type { Actor } from "@/server/reservations/actor";
import { notifyPerson, notifyPersonLater } from "@/server/notifications/notify-person";

/**
 * Tells the holder that someone else (an admin) extended, shortened,
 * released or cancelled their booking. Their own changes tell nothing.
 */
export function tellHolderOfChange(actor: Actor, booking: ReservationView, what: "extended" | "shortened" | "released" | "cancelled"): void {
  if (actor.id === booking.holder.id) return;
  const gpus = `GPU${booking.gpus.length > 1 ? "s" : ""} ${booking.gpus.map((gpu) => gpu.index).join(", ")} on ${booking.host.name}`;
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

/** The leader's listener: alerts open there. */
export function startMisuseNotices(options: { publicUrl?: string } = {}): () => void {
  return onAlertChanged((change) => {
    tellHolderOfMisuse(change, options.publicUrl).catch((error: unknown) =>
      log.error(`could not tell the holder of alert ${change.alert.id}: ${error instanceof Error ? error.message : String(error)}`),
    );
  });
}
