import * as z from "zod";
import { text } from "@/lib/domain/plain-text";
import type { PersonRef } from "@/lib/domain/booking-types";

/**
 * Alerts, their notifications and enforcement settings: the contracts that
 * the API, the /live socket and the pages share.
 */

export const ALERT_KINDS = [
  "conflict",
  "unbooked_use",
  "idle_booking",
  "memory_pressure",
  "gpu_health",
  "gpu_lost",
  "host_offline",
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** Alerts about someone misusing a GPU: the person they are about must not be able to silence them. */
export const MISUSE_ALERT_KINDS: readonly AlertKind[] = ["conflict", "unbooked_use"];

/**
 * Acknowledging silences an alert for everyone. Misuse alerts (a conflict,
 * use without a booking) are for whoever acknowledges every alert alone
 * (an admin: `can.acknowledgeEveryAlert` of server/access/permissions.ts,
 * which the page reads from `/api/v1/me`): the person who uses the GPU must
 * not hush the alert about them, whoever they are. Other alerts about a
 * booking are the booker's; others about no booking anyone involved may
 * acknowledge. The API (`can.acknowledgeAlert`) and the page both ask this.
 */
export function canAcknowledgeAlert(
  viewer: { id: string; acknowledgesEveryAlert: boolean },
  alert: { kind: AlertKind; reservationId: string | null; bookedById: string | null; involvedIds: readonly string[] },
): boolean {
  if (viewer.acknowledgesEveryAlert) return true;
  if (MISUSE_ALERT_KINDS.includes(alert.kind)) return false;
  return alert.reservationId ? alert.bookedById === viewer.id : alert.involvedIds.includes(viewer.id);
}

export const ALERT_KIND_LABELS: Record<AlertKind, string> = {
  conflict: "Conflict",
  unbooked_use: "Use without booking",
  idle_booking: "Idle booking",
  memory_pressure: "Memory pressure",
  gpu_health: "GPU health",
  gpu_lost: "GPU lost",
  host_offline: "Host offline",
};

export const alertKindSchema = z.enum(ALERT_KINDS);

/** One alert as the API answers it and the socket pushes it. Times are ISO strings (UTC). */
export interface AlertView {
  id: string;
  kind: AlertKind;
  subjectKey: string;
  host: { id: string; name: string } | null;
  /** `unit`: the unit's name, as every surface gives it ("GPU 2", "GPU 0:2 (1g.10gb)"); null when unknown. */
  gpu: { uuid: string; index: number | null; unit?: string | null } | null;
  reservationId: string | null;
  /** The booker of the booking the alert is about; they (and admins) may acknowledge it. */
  bookedById: string | null;
  /** The people involved: the booker first, then the others (intruders, the ones running). */
  people: PersonRef[];
  message: string;
  /** What the rule saw: processes with their attribution, utilization, memory, times. */
  evidence: Record<string, unknown>;
  openedAt: string;
  closedAt: string | null;
  acknowledgedAt: string | null;
  acknowledgedBy: PersonRef | null;
  /**
   * The bookings it is about, each once (a booking across nodes by its
   * booking id, with every node): the booking of `reservationId`, or for a
   * silent host those that held a unit of it while the alert was open. The
   * page and the webhooks link each to its card (lib/domain/booking-link.ts).
   */
  bookings?: AlertBookingLink[];
}

/** A booking an alert links to. */
export interface AlertBookingLink {
  id: string;
  /** "2 × 8 H100 on h100-03 and h100-04" (lib/domain/multi-node.ts). */
  name: string;
  bookedById: string;
  /** Where its card is: "/reservations#booking-<id>". */
  path: string;
}

const MAX_LIMIT = 200;

/** `GET /api/v1/alerts`: `state=open` (default) or `all`, with optional filters. */
export const alertQuerySchema = z.object({
  state: z.enum(["open", "all"]).default("open"),
  kind: alertKindSchema.optional(),
  hostId: text().max(64).optional(),
  gpuUuid: text().max(128).optional(),
  /** Admins: only alerts that involve them. Members always get only theirs. */
  mine: z
    .enum(["0", "1", "true", "false"])
    .optional()
    .transform((value) => value === "1" || value === "true"),
  /** Only alerts opened after this time (ISO). */
  since: z.iso.datetime().optional(),
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(100),
  cursor: text().max(64).optional(),
});
export type AlertQuery = z.output<typeof alertQuerySchema>;

export interface AlertPage {
  alerts: AlertView[];
  nextCursor: string | null;
}

/** What the header badge shows: open alerts that concern the viewer. */
export interface AlertSummary {
  open: number;
  /** Open and nobody acknowledged them yet: the badge's number. */
  unacknowledged: number;
}

/** `/live`: the open alerts that concern this viewer, on every (re)connect. */
export interface AlertsSnapshot {
  serverTime: string;
  alerts: AlertView[];
}

/** `/live`: one alert opened, closed or acknowledged. */
export interface AlertUpdate {
  serverTime: string;
  event: "opened" | "closed" | "acknowledged";
  alert: AlertView;
}

// ---------------------------------------------------------------------------
// Webhooks.

export const WEBHOOK_FORMATS = ["slack", "json"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

const webhookUrlSchema = text()
  .trim()
  .max(2000, "is at most 2000 characters")
  .pipe(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }));

/** A new webhook: `scope` "admin" (fleet-wide, admins only) or "personal" (alerts about my bookings). */
export const webhookInputSchema = z.object({
  url: webhookUrlSchema,
  format: z.enum(WEBHOOK_FORMATS).default("json"),
  /** Alert kinds to send; empty means every kind. */
  kinds: z.array(alertKindSchema).max(ALERT_KINDS.length).default([]),
  scope: z.enum(["admin", "personal"]).default("personal"),
});

export const webhookPatchSchema = z
  .object({
    url: webhookUrlSchema.optional(),
    format: z.enum(WEBHOOK_FORMATS).optional(),
    kinds: z.array(alertKindSchema).max(ALERT_KINDS.length).optional(),
    enabled: z.boolean().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, "Nothing to change");

export interface WebhookView {
  id: string;
  url: string;
  format: WebhookFormat;
  kinds: AlertKind[];
  /** Null for an admin (fleet-wide) webhook. */
  owner: PersonRef | null;
  enabled: boolean;
  createdAt: string;
}

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryView {
  id: string;
  webhook: { id: string; url: string; format: WebhookFormat; personal: boolean };
  alertId: string;
  /** What the alert was about; null for a test message or an alert since deleted. */
  /** `unit`: the alert's GPU or slice by its one name ("GPU 0:2 (1g.10gb)"). */
  alert: { kind: AlertKind; hostName: string | null; gpuIndex: number | null; unit: string | null } | null;
  event: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  lastStatusCode: number | null;
  createdAt: string;
  deliveredAt: string | null;
}

export const deliveryQuerySchema = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  /** Only deliveries to my own webhooks (admins see every delivery otherwise). */
  mine: z
    .enum(["0", "1", "true", "false"])
    .optional()
    .transform((value) => value === "1" || value === "true"),
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(100),
});

// ---------------------------------------------------------------------------
// Enforcement.

export const hostSettingInputSchema = z.object({
  terminateIntruders: z.boolean(),
  /** How long a conflict stays open before its intruders are sent SIGTERM. */
  graceSeconds: z.coerce.number().int().min(0, "is at least 0").max(7 * 86_400, "is at most a week"),
  /** How long after SIGTERM a process that is still there gets SIGKILL. */
  killAfterSeconds: z.coerce.number().int().min(1, "is at least 1").max(3600, "is at most an hour"),
});
export type HostSettingInput = z.infer<typeof hostSettingInputSchema>;

export interface HostEnforcementView extends HostSettingInput {
  hostId: string;
  hostName: string;
  simulated: boolean;
  /** An agent of this host is connected and was started with --allow-enforcement. */
  agentAllowsEnforcement: boolean;
}

/** An id in a path (`/api/v1/alerts/:id/…`): bounded before it reaches a query. */
export const recordIdSchema = text().trim().min(1).max(64);

export const webhookScopeSchema = z.object({ scope: z.enum(["admin", "personal"]).default("personal") });

/** The alerts page's "recent": what opened in this many days, open or closed. */
export const RECENT_ALERT_DAYS = 7;

export interface AlertFilters {
  state: "open" | "all";
  kind: AlertKind | "";
  hostId: string;
  mine: boolean;
}

/** The alerts page's filters from its address (`?state=all&kind=conflict&hostId=…&mine=1`); anything odd is ignored. */
export function parseAlertFilters(params: Record<string, string | string[] | undefined>): AlertFilters {
  const one = (key: string) => {
    const value = params[key];
    return (Array.isArray(value) ? value[0] : value) ?? "";
  };
  const kind = alertKindSchema.safeParse(one("kind"));
  return {
    state: one("state") === "all" ? "all" : "open",
    kind: kind.success ? kind.data : "",
    hostId: one("hostId").slice(0, 64),
    mine: one("mine") === "1",
  };
}

/** The API query that shows `filters`, at `nowMs`. */
export function alertQueryOf(filters: AlertFilters, nowMs: number): Record<string, string> {
  return {
    state: filters.state,
    limit: "200",
    ...(filters.state === "all" ? { since: new Date(nowMs - RECENT_ALERT_DAYS * 86_400_000).toISOString() } : {}),
    ...(filters.kind ? { kind: filters.kind } : {}),
    ...(filters.hostId ? { hostId: filters.hostId } : {}),
    ...(filters.mine ? { mine: "1" } : {}),
  };
}
