import * as z from "zod";
import { text } from "@/lib/domain/plain-text";
import { DURATION_MAX_MINUTES, HOST_NAME_MAX } from "@/lib/domain/booking-schema";

/**
 * Teams and their limits: the contracts of /api/v1/teams, shared by the
 * admin page's forms and the routes. A limit left out (or null) is no limit.
 */

export const TEAM_NAME_MAX = 40;
export const MAX_HOST_RULES = 64;
export const MAX_WINDOWS = 14;

const hhmm = text().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, "A time of day as HH:MM, e.g. 08:00");

/** A weekly window: on these days (0 Sunday … 6 Saturday), from one time of day to another (the end not included). */
export const weeklyWindowSchema = z
  .strictObject({
    days: z.array(z.int().min(0, "Days are 0 (Sunday) to 6 (Saturday)").max(6, "Days are 0 (Sunday) to 6 (Saturday)")).min(1, "Name at least one day").max(7),
    from: hhmm.default("00:00"),
    to: hhmm.default("24:00"),
  })
  .refine((window) => window.from < window.to, { message: "The window must end after it starts", path: ["to"] });

export type WeeklyWindow = z.infer<typeof weeklyWindowSchema>;

/** A host the subject may book; with windows, only within them (in the rule's time zone, UTC by default). */
export const hostRuleSchema = z.strictObject({
  host: text().trim().min(1, "Name a host").max(HOST_NAME_MAX),
  windows: z.array(weeklyWindowSchema).max(MAX_WINDOWS).optional(),
  timeZone: text()
    .max(64)
    .refine((zone) => {
      try {
        new Intl.DateTimeFormat("en-US", { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    }, "Not a time zone, e.g. Europe/Berlin")
    .optional(),
});

export type HostRule = z.infer<typeof hostRuleSchema>;

export const limitsSchema = z.strictObject({
  maxGpus: z.int("A whole number of GPUs").min(0).max(4096).nullable().optional(),
  gpuHoursPer7Days: z.number("A number of GPU-hours").min(0).max(1_000_000).nullable().optional(),
  maxBookingMinutes: z.int("Whole minutes").min(1).max(DURATION_MAX_MINUTES).nullable().optional(),
  /** Null or absent: every host. A list: only these hosts (with their windows). */
  hosts: z.array(hostRuleSchema).max(MAX_HOST_RULES).nullable().optional(),
});

export type LimitsInput = z.infer<typeof limitsSchema>;

/** Limits as stored and shown: every kind present, null where there is none. */
export interface Limits {
  maxGpus: number | null;
  gpuHoursPer7Days: number | null;
  maxBookingMinutes: number | null;
  hosts: HostRule[] | null;
}

export const NO_LIMITS: Limits = { maxGpus: null, gpuHoursPer7Days: null, maxBookingMinutes: null, hosts: null };

const teamName = text("Name the team")
  .trim()
  .min(1, "Name the team")
  .max(TEAM_NAME_MAX, `At most ${TEAM_NAME_MAX} characters`)
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} ._-]*$/u, "Letters, digits, spaces, dots, dashes and underscores");

export const teamCreateSchema = z.strictObject({
  name: teamName,
  share: z.number().positive("A share is more than 0").max(1000).optional(),
  limits: limitsSchema.optional(),
});

export const teamUpdateSchema = z.strictObject({
  name: teamName.optional(),
  share: z.number().positive("A share is more than 0").max(1000).optional(),
  limits: limitsSchema.optional(),
});

export const teamMemberSchema = z.strictObject({
  username: text().trim().min(1, "Name a person").max(64),
  lead: z.boolean().optional(),
  /** Make this the person's accounting team; their first team is, by default. */
  accounting: z.boolean().optional(),
});

export const personLimitsSchema = z.strictObject({ limits: limitsSchema });

export type TeamCreate = z.infer<typeof teamCreateSchema>;
export type TeamUpdate = z.infer<typeof teamUpdateSchema>;
export type TeamMemberInput = z.infer<typeof teamMemberSchema>;

export interface TeamMemberView {
  userId: string;
  username: string | null;
  name: string;
  lead: boolean;
  accounting: boolean;
  limits: Limits | null;
}

export interface TeamView {
  id: string;
  name: string;
  share: number;
  limits: Limits;
  members: TeamMemberView[];
}

/** What the booking form shows before submit: the limits that apply and the room left now. */
export interface RoomView {
  team: { id: string; name: string } | null;
  teams: { id: string; name: string; accounting: boolean }[];
  limits: Limits;
  /** Where each limit comes from: "team" (the team's), "person" (their own), or null (none). */
  sources: Record<keyof Limits, "team" | "person" | null>;
  gpusNow: { used: number; limit: number } | null;
  gpuHours7Days: { used: number; limit: number } | null;
}

export type LimitKind = keyof Limits;

/** The numbers of a 409 `quota_exceeded`: which limit, whose, what is used, and when room frees up. */
export interface QuotaRefusal {
  limit: LimitKind;
  /** Whose limit: the team's (counting all its bookings) or the person's own. */
  scope: "team" | "person";
  subject: string;
  used: number | null;
  max: number | null;
  requested: number | null;
  /** When enough room frees up for this request (ISO), where that can be known. */
  freesAt: string | null;
}

export interface QuotaExceededBody {
  error: { code: "quota_exceeded"; message: string; quota: QuotaRefusal };
}
