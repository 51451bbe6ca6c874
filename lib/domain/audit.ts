import * as z from "zod";
import { text } from "@/lib/domain/plain-text";
import type { PersonRef, BookingAuditAction } from "@/lib/domain/booking-types";

/**
 * What the audit log records, by kind (the part before the dot). Teams and
 * limits (`team.*`, `limit.*`) are named by their own module.
 */
export const AUDIT_KINDS = {
  reservation: "Bookings",
  policy: "Booking rules",
  user: "Accounts",
  token: "API tokens",
  host: "Hosts and enforcement",
  display: "Displays",
  webhook: "Webhooks",
  team: "Teams",
  limit: "Limits",
  alert: "Alerts",
  waitlist: "Waiting requests",
  signin: "Sign-ins",
} as const;

export type AuditKind = keyof typeof AUDIT_KINDS;

export type KnownAuditAction =
  | BookingAuditAction
  | "user.create"
  | "user.role"
  | "user.disable"
  | "user.enable"
  | "user.unix_login"
  | "user.rename"
  | "user.directory_link"
  | "user.directory_bind"
  | "user.password_reset"
  | "user.password_change"
  | "user.password_change_refused"
  | "user.email"
  | "user.time_zone"
  | "token.create"
  | "token.revoke"
  | "host.register"
  | "host.rotate"
  | "host.remove"
  | "host.fabric_label"
  | "host.slurm_node"
  | "reservation.slurm_repair"
  | "host_setting.update"
  | "display.create"
  | "display.revoke"
  | "display.update"
  | "policy.demo_choice"
  | "webhook.create"
  | "webhook.update"
  | "webhook.delete"
  | "alert.acknowledge"
  | "waitlist.leave"
  | "signin.failure"
  | "signin.lockout"
  | "team.create"
  | "team.update"
  | "team.delete"
  | "team.member.add"
  | "team.member.remove"
  | "limits.update"
  | "enforcement.requested"
  /** Not requested: the process ran before its GPU was booked (server/enforcement/enforcement-plan.ts). */
  | "enforcement.spared"
  | "enforcement.sigterm"
  | "enforcement.sigkill"
  | "enforcement.exited"
  | "enforcement.gone"
  | "enforcement.refused";

/** Teams and limits (and enforcement's own lines) name their actions within their kind. */
export type AuditAction = KnownAuditAction | `team.${string}` | `limit.${string}` | `limits.${string}` | `enforcement.${string}`;

export const AUDIT_ACTION_LABELS: Record<KnownAuditAction, string> = {
  "reservation.create": "Booked",
  "reservation.extend": "Extended",
  "reservation.shorten": "Shortened",
  "reservation.release": "Released",
  "reservation.cancel": "Cancelled",
  "reservation.keep": "Kept (not idle release)",
  "reservation.replace_part": "Moved a node to a spare host",
  "reservation.idle_release": "Released for idleness",
  "policy.update": "Changed the rules",
  "policy.demo_choice": "Chose between the demo and the lab",
  "policy.idle_exemption_add": "Exempted from idle release",
  "policy.idle_exemption_remove": "Removed an idle exemption",
  "user.create": "Added a person",
  "user.time_zone": "Changed their time zone",
  "user.role": "Changed a role",
  "user.disable": "Disabled a person",
  "user.enable": "Enabled a person",
  "user.unix_login": "Changed a Unix login",
  "user.rename": "Renamed a person",
  "user.directory_link": "Linked to the directory",
  "user.directory_bind": "Bound to a directory identity",
  "user.password_reset": "Reset a password",
  "user.password_change": "Changed their password",
  "user.password_change_refused": "Password change refused",
  "user.email": "Changed a mail address",
  "token.create": "Created an API token",
  "token.revoke": "Revoked an API token",
  "host.register": "Registered a host",
  "host.rotate": "Rotated a host token",
  "host.remove": "Removed a host",
  "host.fabric_label": "Named a host's fabric",
  "host.slurm_node": "Mapped a host to a Slurm node",
  "reservation.slurm_repair": "Repaired a booking's Slurm reservation",
  "host_setting.update": "Changed enforcement",
  "display.create": "Added a display",
  "display.revoke": "Revoked a display",
  "display.update": "Changed a display's settings",
  "webhook.create": "Added a webhook",
  "webhook.update": "Changed a webhook",
  "webhook.delete": "Removed a webhook",
  "alert.acknowledge": "Acknowledged an alert",
  "waitlist.leave": "Withdrew a waiting request",
  "signin.failure": "Sign-in failed",
  "signin.lockout": "Sign-ins locked out",
  "team.create": "Made a team",
  "team.update": "Changed a team",
  "team.delete": "Deleted a team",
  "team.member.add": "Added to a team",
  "team.member.remove": "Removed from a team",
  "limits.update": "Changed a person's limits",
  "enforcement.requested": "Asked the host to stop a process",
  "enforcement.spared": "Spared a process that ran before the booking",
  "enforcement.sigterm": "Sent a process SIGTERM",
  "enforcement.sigkill": "Sent a process SIGKILL",
  "enforcement.exited": "A stopped process exited",
  "enforcement.gone": "The process to stop was already gone",
  "enforcement.refused": "The host refused to stop a process",
};

/** The kind an action belongs to: `user.role` → `user`; enforcement's lines are the host's. */
export function auditKindOf(action: string): string {
  const prefix = action.split(".")[0];
  if (prefix === "limits") return "limit";
  return prefix === "host_setting" || prefix === "enforcement" ? "host" : prefix;
}

export interface AuditEntryView {
  id: string;
  at: string;
  actor: PersonRef | null;
  action: AuditAction;
  entityType: string;
  entityId: string;
  before: unknown;
  after: unknown;
  ip: string | null;
  via: string | null;
}

export interface AuditPage {
  entries: AuditEntryView[];
  /** Pass as `cursor` for the next, older page; null at the end. */
  nextCursor: string | null;
}

const kindSchema = z.enum(Object.keys(AUDIT_KINDS) as [AuditKind, ...AuditKind[]]);

/** The filters of /admin/audit, `GET /api/v1/audit` and `gpudesk audit`. */
export const auditQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: text().max(64).optional(),
  kind: kindSchema.optional(),
  /** Username: what they did, and what was done to their account. */
  person: text().trim().toLowerCase().max(64).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  entityType: text().max(32).optional(),
  entityId: text().max(64).optional(),
});

export type AuditQuery = z.infer<typeof auditQuerySchema>;
