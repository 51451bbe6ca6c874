import type { Namespace } from "socket.io";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live-events";
import type { GrantNotice } from "@/lib/waitlist-schema";
import { db } from "@/server/db";
import { viewerRoom } from "@/server/fleet/viewer-rooms";
import { log } from "@/server/log";
import { wakeDeliveries } from "@/server/notifications/notifications";
import { processEvent } from "@/server/process-events";
import { escapeSlackText } from "@/server/notifications/webhook-payload";
import { toFormat } from "@/server/notifications/webhooks";

/**
 * Telling people that their waiting request became a reservation: live on
 * /live (every page they have open) and through their personal webhooks.
 */
const granted = processEvent<GrantNotice>("__gpudeskGrantListeners", "waitlist grants");

export const onWaitlistGranted = granted.on;

/** "Your 2 GPUs on node-b are booked": the sentence the page and the Slack message share. */
export function grantSentence(notice: GrantNotice): string {
  const gpus = `GPU${notice.gpuIndices.length > 1 ? "s" : ""} ${notice.gpuIndices.join(", ")} on ${notice.hostName}`;
  return `Your waiting request "${notice.purpose}" is now a reservation: ${gpus} until ${notice.endsAt}.`;
}

/** The body a personal webhook receives; `json` carries the notice as data, `slack` a `{ text }` message. */
export function grantPayload(format: "slack" | "json", notice: GrantNotice, publicUrl?: string): string {
  const link = publicUrl ? `${publicUrl.replace(/\/$/, "")}/reservations` : null;
  if (format === "json") return JSON.stringify({ event: "waitlist.granted", grant: notice, ...(link ? { link } : {}) });
  return JSON.stringify({ text: `:tada: ${escapeSlackText(grantSentence(notice))}${link ? ` <${link}|launch settings>` : ""}` });
}

/** Queues one delivery per enabled personal webhook of the person; returns how many. */
export async function enqueueGrantDeliveries(notice: GrantNotice, options: { publicUrl?: string; now?: Date } = {}): Promise<number> {
  const webhooks = await db().webhook.findMany({ where: { enabled: true, userId: notice.userId }, select: { id: true, format: true } });
  if (webhooks.length === 0) return 0;
  const now = options.now ?? new Date();
  await db().webhookDelivery.createMany({
    data: webhooks.map((webhook) => ({
      webhookId: webhook.id,
      // The delivery log's subject: the waiting request, in the column alerts use for theirs.
      alertId: notice.entryId,
      event: "waitlist.granted",
      payload: grantPayload(toFormat(webhook.format), notice, options.publicUrl),
      nextAttemptAt: now,
      createdAt: now,
    })),
  });
  return webhooks.length;
}

/** Tells each person of their grants: live listeners at once, webhooks through the delivery worker. */
export async function announceGrants(grants: GrantNotice[], options: { publicUrl?: string } = {}): Promise<void> {
  for (const notice of grants) {
    granted.emit(notice);
    try {
      if ((await enqueueGrantDeliveries(notice, options)) > 0) wakeDeliveries();
    } catch (error) {
      log.error(`could not queue the webhook for waitlist grant ${notice.entryId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Sends grants to the person's /live connections (their room, on any instance when the adapter is shared). */
export function attachGrantNotices(namespace: Namespace<LiveClientToServer, LiveServerToClient>): () => void {
  return onWaitlistGranted((notice) => {
    namespace.to(viewerRoom(notice.userId)).emit("waitlist:granted", notice);
  });
}
