import type { IdleNotice } from "@/lib/domain/idle-release";
import { holdingSentence, idleSentence } from "@/lib/domain/idle-release";
import { bookingPath } from "@/lib/domain/booking-link";
import { log } from "@/server/core/log";
import { notifyPerson, onPersonNotice } from "@/server/notifications/notify-person";
import { escapeSlackText } from "@/server/notifications/webhook-payload";

/**
 * Telling a booker about idle release. It goes through the one
 * person-notification dispatcher (server/notifications/notify-person.ts):
 * on every page they have open (as `reservation:idle`, which carries the
 * Keep button), by mail and through their personal webhooks, by their
 * choices for "my booking is idle and will be released".
 */
export function onIdleNotice(listener: (notice: IdleNotice) => void): () => void {
  return onPersonNotice((notice) => {
    if (notice.event === "booking.idle_release" && notice.data) listener(notice.data as IdleNotice);
  });
}

const utc = (iso: string) => `${iso.slice(11, 16)} UTC`;

/** The sentence a Slack message and a mail say. */
export function idleNoticeSentence(notice: IdleNotice): string {
  const gpus = notice.booked;
  const holding = holdingSentence(notice.holding);
  if (notice.event === "reservation.idle_released") {
    const what = idleSentence({ phase: "released", idleSince: notice.idleSince, releaseAt: notice.releaseAt, idleMinutes: 0, keepsLeft: 0, exempt: false, reportOnly: false }, utc);
    return `Your booking "${notice.purpose}" (${gpus}): ${what}.${holding ? ` Note: ${holding}.` : ""}`;
  }
  const what = idleSentence({ phase: "warning", idleSince: notice.idleSince, releaseAt: notice.releaseAt, idleMinutes: 0, keepsLeft: notice.keepsLeft, exempt: false, reportOnly: notice.reportOnly }, utc);
  const keep = notice.keepsLeft > 0 ? " Keep it from /reservations or with `gpudesk keep`." : " No keeps left.";
  return `Your booking "${notice.purpose}" (${gpus}): ${what}.${keep}${holding ? ` Note: ${holding}.` : ""}`;
}

export function idlePayload(format: "slack" | "json", notice: IdleNotice, publicUrl?: string): string {
  const link = publicUrl ? `${publicUrl.replace(/\/$/, "")}${bookingPath(notice.reservationId)}` : null;
  if (format === "json") return JSON.stringify({ event: notice.event, reservation: notice, ...(link ? { link } : {}) });
  const icon = notice.event === "reservation.idle_released" ? ":hourglass:" : ":warning:";
  return JSON.stringify({ text: `${icon} ${escapeSlackText(idleNoticeSentence(notice))}${link ? ` <${link}|the booking>` : ""}` });
}

/**
 * Tells the booker once per idle spell and event (a restart or a new leader
 * does not warn again): their pages, mail and webhooks, by their choices.
 */
export async function notifyIdle(notice: IdleNotice, options: { publicUrl?: string; now?: Date } = {}): Promise<void> {
  const released = notice.event === "reservation.idle_released";
  try {
    await notifyPerson(
      {
        userId: notice.userId,
        event: "booking.idle_release",
        subjectId: notice.reservationId,
        title: released ? `Your booking "${notice.purpose}" was released for idleness` : `Your booking "${notice.purpose}" is idle and will be released`,
        text: idleNoticeSentence(notice),
        path: bookingPath(notice.reservationId),
        onceKey: `${notice.event}:${notice.reservationId}:${notice.idleSince}`,
        data: notice,
        webhookBody: (format) => idlePayload(format, notice, options.publicUrl),
        now: options.now,
      },
      { publicUrl: options.publicUrl },
    );
  } catch (error) {
    log.error(`could not tell the booker of ${notice.reservationId} of ${notice.event}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
