import { Prisma } from "@prisma/client";
import type { Namespace } from "socket.io";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live/live-events";
import type { PersonEvent, PersonNoticeView } from "@/lib/domain/person-notices";
import type { IdleNotice } from "@/lib/domain/idle-release";
import type { GrantNotice } from "@/lib/domain/waitlist-schema";
import { db } from "@/server/core/db";
import { env } from "@/server/core/env";
import { viewerRoom } from "@/server/live/viewer-rooms";
import { log } from "@/server/core/log";
import { wakeMail } from "@/server/notifications/mail-worker";
import { mailConfigured } from "@/server/notifications/mailer";
import { channelsOf, personalEmail } from "@/server/notifications/notification-preferences";
import { wakeDeliveries } from "@/server/notifications/notifications";
import { escapeSlackText } from "@/server/notifications/webhook-payload";
import { toFormat } from "@/server/notifications/webhooks";
import { eventChannel } from "@/server/core/event-bus";

/** Something to tell one person about their own bookings. */
export interface PersonNotice {
  userId: string;
  event: PersonEvent;
  /** What it is about (a booking's or waiting request's id): the delivery log's subject. */
  subjectId: string;
  /** One line: the mail's subject, the notice's heading. */
  title: string;
  /** The sentence(s) that say what happened and what to do. */
  text: string;
  /** Where in gpudesk to look (e.g. /reservations): the link in mail and on the page. */
  path: string;
  /**
   * Given once ever for this key (e.g. the booking and its end time): a
   * second call, after a restart or on a new leader, sends nothing.
   */
  onceKey?: string;
  /** The event's own data, for JSON webhooks (and the live form of a waitlist grant). */
  data?: unknown;
  /** A personal webhook's body, where the event had one before (waitlist grants); default: built from the notice. */
  webhookBody?: (format: "slack" | "json") => string;
  now?: Date;
}

export interface NotifyResult {
  /** Already given once (onceKey): nothing was sent. */
  repeated: boolean;
  page: boolean;
  webhooks: number;
  mail: boolean;
}

const pageNotices = eventChannel<PersonNoticeView & { userId: string; data?: unknown }>("personNotice");

/** Listens to page notices as they are given, on the instance that gives them. */
export const onPersonNotice = pageNotices.on;

function linkOf(path: string, publicUrl: string | undefined): string | null {
  return publicUrl ? `${publicUrl.replace(/\/$/, "")}${path}` : null;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char] ?? char);
}

/** The mail: plain text and HTML saying the same, with the link where gpudesk knows its public address. */
export function mailOf(notice: Pick<PersonNotice, "title" | "text" | "path">, publicUrl: string | undefined): { subject: string; text: string; html: string } {
  const link = linkOf(notice.path, publicUrl);
  const text = `${notice.text}\n\n${link ? `Open gpudesk: ${link}\n` : ""}\n-- \nYou chose to get this by mail in gpudesk (Settings → Notifications).\n`;
  const html =
    `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">` +
    `<h1 style="font-size:18px">${escapeHtml(notice.title)}</h1><p>${escapeHtml(notice.text)}</p>` +
    (link ? `<p><a href="${escapeHtml(link)}">Open gpudesk</a></p>` : "") +
    `<p style="color:#64748b;font-size:12px">You chose to get this by mail in gpudesk (Settings → Notifications).</p></body></html>`;
  return { subject: `[gpudesk] ${notice.title}`, text, html };
}

function webhookBodyOf(notice: PersonNotice, format: "slack" | "json", publicUrl: string | undefined): string {
  if (notice.webhookBody) return notice.webhookBody(format);
  const link = linkOf(notice.path, publicUrl);
  if (format === "json") {
    return JSON.stringify({ event: notice.event, notice: { title: notice.title, text: notice.text, subjectId: notice.subjectId }, ...(notice.data !== undefined ? { data: notice.data } : {}), ...(link ? { link } : {}) });
  }
  return JSON.stringify({ text: `${escapeSlackText(notice.text)}${link ? ` <${link}|open gpudesk>` : ""}` });
}

/** Claims the notice's once-key; false when it was given before (the row exists). */
async function claimOnce(notice: PersonNotice, now: Date): Promise<boolean> {
  if (!notice.onceKey) return true;
  try {
    await db().personNotice.create({ data: { key: notice.onceKey, userId: notice.userId, event: notice.event, createdAt: now } });
    return true;
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return false;
    throw error;
  }
}

/**
 * The one way gpudesk tells a person something about their own bookings:
 * on the page (every gpudesk page they have open, over /live), by mail, by
 * their choice per event (Settings → Notifications), and through their
 * personal webhooks. Mail and webhooks are queued rows that their workers
 * send and retry; the delivery log shows both.
 */
export async function notifyPerson(notice: PersonNotice, options: { publicUrl?: string } = {}): Promise<NotifyResult> {
  const now = notice.now ?? new Date();
  const publicUrl = options.publicUrl ?? env().GPUDESK_PUBLIC_URL;
  if (!(await claimOnce(notice, now))) return { repeated: true, page: false, webhooks: 0, mail: false };
  const channels = (await channelsOf(notice.userId))[notice.event];
  const result: NotifyResult = { repeated: false, page: false, webhooks: 0, mail: false };

  if (channels.onPage) {
    pageNotices.emit({ id: `${notice.event}:${notice.subjectId}:${now.getTime()}`, userId: notice.userId, event: notice.event, title: notice.title, text: notice.text, path: notice.path, at: now.toISOString(), data: notice.data });
    result.page = true;
  }

  // Alerts reach personal webhooks on their own (server/notifications/deliveries.ts); a conflict is not sent twice.
  if (notice.event !== "booking.conflict") {
    const webhooks = await db().webhook.findMany({ where: { enabled: true, userId: notice.userId }, select: { id: true, format: true } });
    if (webhooks.length > 0) {
      await db().webhookDelivery.createMany({
        data: webhooks.map((webhook) => ({
          webhookId: webhook.id,
          // The delivery log's subject column, which alerts fill with theirs.
          alertId: notice.subjectId,
          event: notice.event,
          payload: webhookBodyOf(notice, toFormat(webhook.format), publicUrl),
          nextAttemptAt: now,
          createdAt: now,
        })),
      });
      result.webhooks = webhooks.length;
      wakeDeliveries();
    }
  }

  if (channels.byMail && mailConfigured()) {
    const person = await db().user.findUnique({ where: { id: notice.userId }, select: { email: true } });
    const to = person ? personalEmail(person.email) : null;
    if (to) {
      await db().mailDelivery.create({ data: { userId: notice.userId, to, event: notice.event, subjectId: notice.subjectId, ...mailOf(notice, publicUrl), nextAttemptAt: now, createdAt: now } });
      result.mail = true;
      wakeMail();
    }
  }
  return result;
}

/** notifyPerson for callers that must not fail with it (a tick, a runner): the failure is logged. */
export function notifyPersonLater(notice: PersonNotice, options: { publicUrl?: string } = {}): void {
  notifyPerson(notice, options).catch((error: unknown) =>
    log.error(`could not notify ${notice.userId} of ${notice.event} ${notice.subjectId}: ${error instanceof Error ? error.message : String(error)}`),
  );
}

/**
 * Sends page notices to the person's /live connections (their room, on any
 * instance when the adapter is shared). A waitlist grant keeps its own
 * event, `waitlist:granted`, which the queue page and its toast listen to;
 * idle release keeps `reservation:idle`, whose notice carries the Keep button.
 */
export function attachPersonNotices(namespace: Namespace<LiveClientToServer, LiveServerToClient>): () => void {
  return pageNotices.on(({ userId, data, ...view }) => {
    if (view.event === "waitlist.granted" && data) namespace.to(viewerRoom(userId)).emit("waitlist:granted", data as GrantNotice);
    else if (view.event === "booking.idle_release" && data) namespace.to(viewerRoom(userId)).emit("reservation:idle", data as IdleNotice);
    else namespace.to(viewerRoom(userId)).emit("notice:person", view);
  });
}
