import type { Namespace } from "socket.io";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live-events";
import { viewerRoom } from "@/server/fleet/viewer-rooms";
import type { IdleNotice } from "@/lib/idle-release";
import { holdingSentence, idleSentence } from "@/lib/idle-release";
import { db } from "@/server/db";
import { log } from "@/server/log";
import { wakeDeliveries } from "@/server/notifications/notifications";
import { escapeSlackText } from "@/server/notifications/webhook-payload";
import { toFormat } from "@/server/notifications/webhooks";
import { processEvent } from "@/server/process-events";

/**
 * Telling a holder about idle release, the way waitlist grants are told
 * (server/waitlist/grant-notices.ts): every page they have open (over /live)
 * and their personal webhooks. Everything goes through `notifyIdle`, the one
 * function to point at the person-notification dispatcher when it lands.
 */
const idleNotices = processEvent<IdleNotice>("__gpudeskIdleNoticeListeners", "idle notices");

export const onIdleNotice = idleNotices.on;

const utc = (iso: string) => `${iso.slice(11, 16)} UTC`;

/** The sentence a Slack message and a mail say. */
export function idleNoticeSentence(notice: IdleNotice): string {
  const gpus = `GPU${notice.gpuIndices.length > 1 ? "s" : ""} ${notice.gpuIndices.join(", ")} on ${notice.hostName}`;
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
  const link = publicUrl ? `${publicUrl.replace(/\/$/, "")}/reservations` : null;
  if (format === "json") return JSON.stringify({ event: notice.event, reservation: notice, ...(link ? { link } : {}) });
  const icon = notice.event === "reservation.idle_released" ? ":hourglass:" : ":warning:";
  return JSON.stringify({ text: `${icon} ${escapeSlackText(idleNoticeSentence(notice))}${link ? ` <${link}|your reservations>` : ""}` });
}

/** Tells the holder: their open pages at once, their personal webhooks through the delivery worker. */
export async function notifyIdle(notice: IdleNotice, options: { publicUrl?: string; now?: Date } = {}): Promise<void> {
  idleNotices.emit(notice);
  try {
    const webhooks = await db().webhook.findMany({ where: { enabled: true, userId: notice.userId }, select: { id: true, format: true } });
    if (webhooks.length === 0) return;
    const now = options.now ?? new Date();
    await db().webhookDelivery.createMany({
      data: webhooks.map((webhook) => ({
        webhookId: webhook.id,
        // The delivery log's subject: the booking, in the column alerts use for theirs.
        alertId: notice.reservationId,
        event: notice.event,
        payload: idlePayload(toFormat(webhook.format), notice, options.publicUrl),
        nextAttemptAt: now,
        createdAt: now,
      })),
    });
    wakeDeliveries();
  } catch (error) {
    log.error(`could not queue the webhook for ${notice.event} of ${notice.reservationId}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Sends idle notices to the holder's /live connections (their room, on any instance when the adapter is shared). */
export function attachIdleNotices(namespace: Namespace<LiveClientToServer, LiveServerToClient>): () => void {
  return onIdleNotice((notice) => {
    namespace.to(viewerRoom(notice.userId)).emit("reservation:idle", notice);
  });
}
