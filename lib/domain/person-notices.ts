import * as z from "zod";
import { isReservedAddress } from "@/lib/domain/mail-address";

/**
 * What gpudesk tells one person about their own bookings, and the channels
 * each may reach them by (Settings → Notifications). The dispatcher is
 * server/notifications/notify-person.ts.
 */
export const PERSON_EVENTS = {
  "booking.starts_soon": { label: "My booking starts in 15 minutes", onPage: true, byMail: false },
  "booking.ends_soon": { label: "My booking ends in 15 minutes", onPage: true, byMail: true },
  "waitlist.granted": { label: "My queue request was granted", onPage: true, byMail: true },
  "booking.idle_release": { label: "My booking is idle and will be released", onPage: true, byMail: true },
  "booking.conflict": { label: "A conflict or unbooked use on my GPUs", onPage: true, byMail: true },
  "booking.changed_by_admin": { label: "My booking was changed by an admin", onPage: true, byMail: true },
  "booking.unit_gone": { label: "A GPU or MIG slice I booked is gone from its host", onPage: true, byMail: true },
  "booking.node_failed": { label: "A node of my booking across nodes failed", onPage: true, byMail: true },
  "booking.slurm_missing": { label: "Slurm no longer holds my booking's reservation", onPage: true, byMail: true },
} as const;

export type PersonEvent = keyof typeof PERSON_EVENTS;

export const PERSON_EVENT_NAMES = Object.keys(PERSON_EVENTS) as [PersonEvent, ...PersonEvent[]];

export interface NotificationPreferenceView {
  event: PersonEvent;
  label: string;
  onPage: boolean;
  byMail: boolean;
}

export interface NotificationSettingsView {
  /** Null while the person has no mail address of their own. */
  email: string | null;
  /** Whether this server can send mail at all (GPUDESK_SMTP_URL). */
  mailConfigured: boolean;
  preferences: NotificationPreferenceView[];
}

export const notificationSettingsSchema = z.object({
  email: z
    .email("is not a mail address")
    .max(254)
    .refine((email) => !isReservedAddress(email), "is in a domain gpudesk reserves for its made-up addresses")
    .nullable()
    .optional(),
  preferences: z
    .array(z.object({ event: z.enum(PERSON_EVENT_NAMES), onPage: z.boolean(), byMail: z.boolean() }))
    .max(PERSON_EVENT_NAMES.length * 2)
    .optional(),
});

/** A notice on the page (`notice:person` on /live), sent to that person only. */
export interface PersonNoticeView {
  id: string;
  event: PersonEvent;
  title: string;
  text: string;
  /** A path inside gpudesk (/reservations), for the notice's link. */
  path: string;
  at: string;
}
