import type { GrantNotice } from "@/lib/domain/waitlist-schema";
import { notifyPerson, onPersonNotice } from "@/server/notifications/notify-person";
import { escapeSlackText } from "@/server/notifications/webhook-payload";
import { log } from "@/server/core/log";

/**
 * Telling people that their waiting request became a booking, through
 * the person-notification dispatcher (server/notifications/notify-person.ts):
 * on their pages, by mail and through their personal webhooks, by their choice.
 */

/** Hears each grant given on the page (tests, and the /live endpoint through attachPersonNotices). */
export function onWaitlistGranted(listener: (notice: GrantNotice) => void): () => void {
  return onPersonNotice((notice) => {
    if (notice.event === "waitlist.granted" && notice.data) listener(notice.data as GrantNotice);
  });
}

/** "Your 2 GPUs on node-b are booked": the sentence the page and the Slack message share. */
export function grantSentence(notice: GrantNotice): string {
  const gpus = `${notice.units} on ${notice.hostName}`;
  return `Your waiting request "${notice.purpose}" is now a reservation: ${gpus} until ${notice.endsAt}.`;
}

/** The body a personal webhook receives; `json` carries the notice as data, `slack` a `{ text }` message. */
export function grantPayload(format: "slack" | "json", notice: GrantNotice, publicUrl?: string): string {
  const link = publicUrl ? `${publicUrl.replace(/\/$/, "")}/reservations` : null;
  if (format === "json") return JSON.stringify({ event: "waitlist.granted", grant: notice, ...(link ? { link } : {}) });
  return JSON.stringify({ text: `:tada: ${escapeSlackText(grantSentence(notice))}${link ? ` <${link}|launch settings>` : ""}` });
}

/** Tells each person of their grants. */
export async function announceGrants(grants: GrantNotice[], options: { publicUrl?: string } = {}): Promise<void> {
  for (const notice of grants) {
    try {
      await notifyPerson(
        {
          userId: notice.userId,
          event: "waitlist.granted",
          subjectId: notice.entryId,
          title: `Your GPUs on ${notice.hostName} are ready`,
          text: grantSentence(notice),
          path: "/reservations",
          onceKey: `waitlist.granted:${notice.entryId}`,
          data: notice,
          webhookBody: (format) => grantPayload(format, notice, options.publicUrl),
        },
        options,
      );
    } catch (error) {
      log.error(`could not tell of waitlist grant ${notice.entryId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
