import { PERSON_EVENTS, PERSON_EVENT_NAMES, notificationSettingsSchema, type NotificationSettingsView, type PersonEvent } from "@/lib/domain/person-notices";
import { writeAudit } from "@/server/access/audit-log";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { freeSyntheticEmail } from "@/server/auth/synthetic-email";
import { mailConfigured } from "@/server/notifications/mailer";

export type Channels = { onPage: boolean; byMail: boolean };

/** better-auth needs an address per account; gpudesk makes up one under .gpudesk.invalid until the person gives theirs. */
export function personalEmail(email: string): string | null {
  return email.endsWith(".gpudesk.invalid") ? null : email;
}

/** Each event's channels for one person: their choice, else the event's default. */
export async function channelsOf(userId: string): Promise<Record<PersonEvent, Channels>> {
  const rows = await db().notificationPreference.findMany({ where: { userId }, select: { event: true, onPage: true, byMail: true } });
  const chosen = new Map(rows.map((row) => [row.event, row]));
  return Object.fromEntries(
    PERSON_EVENT_NAMES.map((event) => {
      const row = chosen.get(event);
      return [event, row ? { onPage: row.onPage, byMail: row.byMail } : { onPage: PERSON_EVENTS[event].onPage, byMail: PERSON_EVENTS[event].byMail }];
    }),
  ) as Record<PersonEvent, Channels>;
}

export async function getNotificationSettings(userId: string): Promise<NotificationSettingsView> {
  const [user, channels] = await Promise.all([db().user.findUniqueOrThrow({ where: { id: userId }, select: { email: true } }), channelsOf(userId)]);
  return {
    email: personalEmail(user.email),
    mailConfigured: mailConfigured(),
    preferences: PERSON_EVENT_NAMES.map((event) => ({ event, label: PERSON_EVENTS[event].label, ...channels[event] })),
  };
}

/** Saves the person's mail address and choices; an address already someone else's is refused. */
export async function updateNotificationSettings(userId: string, input: unknown): Promise<NotificationSettingsView> {
  const data = notificationSettingsSchema.parse(input);
  await db().$transaction(async (tx) => {
    if (data.email !== undefined) {
      const current = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { email: true, username: true } });
      const chosen = data.email?.toLowerCase() ?? null;
      const keeps = chosen === null ? personalEmail(current.email) === null : chosen === current.email;
      if (!keeps) {
        const email = chosen ?? (await freeSyntheticEmail(current.username ?? userId, "users", tx));
        const owner = await tx.user.findUnique({ where: { email }, select: { id: true } });
        if (owner && owner.id !== userId) throw new AppError("conflict", "This mail address is someone else's", { email: "is someone else's" });
        await tx.user.update({ where: { id: userId }, data: { email, emailVerified: false } });
        await writeAudit(tx, { actorId: userId, action: "user.email", entityType: "user", entityId: userId, before: { email: personalEmail(current.email) }, after: { email: personalEmail(email) } });
      }
    }
    for (const preference of data.preferences ?? []) {
      await tx.notificationPreference.upsert({
        where: { userId_event: { userId, event: preference.event } },
        create: { userId, ...preference },
        update: { onPage: preference.onPage, byMail: preference.byMail },
      });
    }
  });
  return getNotificationSettings(userId);
}
