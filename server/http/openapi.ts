import { recurringMultiNodeRequestSchema, recurringRequestSchema } from "@/lib/domain/recurrence";
import { z } from "zod";
import { demoChoiceSchema } from "@/lib/domain/demo-choice";
import { alertQuerySchema, deliveryQuerySchema, hostSettingInputSchema, webhookInputSchema, webhookPatchSchema, webhookScopeSchema } from "@/lib/domain/alerts";
import {
  auditQuerySchema,
  multiNodeRequestSchema,
  policySchema,
  bookingCancelSchema,
  bookingChangeSchema,
  replacePartSchema,
  bookingListQuerySchema,
  bookingRequestSchema,
} from "@/lib/domain/booking-schema";
import { hostPatchSchema } from "@/lib/domain/slurm";
import { idleExemptionSchema } from "@/lib/domain/idle-exemption-schema";
import { changePasswordSchema } from "@/lib/domain/password";
import { notificationSettingsSchema } from "@/lib/domain/person-notices";
import { rangeQuerySchema } from "@/lib/domain/usage-range";
import { GPUDESK_VERSION } from "@/lib/version";
import { multiNodeWaitRequestSchema, waitRequestSchema } from "@/lib/domain/waitlist-schema";
import { personLimitsSchema, teamCreateSchema, teamMemberSchema, teamUpdateSchema } from "@/lib/domain/team-schema";
import { createDisplaySchema, createTokenSchema, updateDisplaySchema } from "@/server/auth/tokens";
import { updateMeSchema } from "@/lib/domain/account-schema";
import { createUserSchema, updateUserSchema } from "@/server/auth/users";
import { efficiencyQuerySchema } from "@/server/history/booking-efficiency";
import { usageOptionsSchema } from "@/server/history/usage-service";
import { createHostSchema } from "@/server/hosts/host-registry";
import { teamUsageQuerySchema } from "@/server/teams/team-usage-params";

type Method = "get" | "post" | "put" | "patch" | "delete";

interface Operation {
  method: Method;
  /** OpenAPI path template, `{id}` for a route's `[id]`. */
  path: string;
  summary: string;
  /** Who may call it: any signed-in person or token, admins only, or anyone. */
  access: "user" | "admin" | "public";
  /** The zod schemas the route parses: its JSON body and its query string. */
  body?: z.ZodType;
  query?: z.ZodType;
  /** Status of a success (default 200); 204 answers no body. */
  success?: 200 | 201 | 204;
  /** What a success answers when it is not JSON. */
  produces?: string;
}

/**
 * Every route under app/api/v1, with the zod schemas its handler parses.
 * Listed here by hand (a test checks the list against the route files), the
 * schemas themselves are the routes' own, so the document cannot drift from
 * what the server accepts.
 */
const OPERATIONS: Operation[] = [
  { method: "get", path: "/api/v1/openapi.json", summary: "This document", access: "public" },
  {
    method: "get",
    path: "/api/v1/calendar/{feed}",
    summary: "An iCalendar feed (`<secret>.ics`): my bookings, or a host's for an admin; the address is the key (Settings shows it)",
    access: "public",
    produces: "text/calendar",
  },
  { method: "get", path: "/api/v1/me", summary: "Who is asking (person, role, token kind)", access: "user" },
  { method: "patch", path: "/api/v1/me", summary: "My settings: `timeZone` (an IANA zone, or null for the browser's)", access: "user", body: updateMeSchema },
  {
    method: "post",
    path: "/api/v1/me/password",
    summary: "Change my password (the current one required; signed in in a browser, not with a token): my other sessions end, this one gets a new cookie",
    access: "user",
    body: changePasswordSchema,
  },
  { method: "get", path: "/api/v1/me/notifications", summary: "My mail address and, per event, whether it reaches me on the page and by mail", access: "user" },
  { method: "patch", path: "/api/v1/me/notifications", summary: "Change my mail address and notification choices", access: "user", body: notificationSettingsSchema },
  { method: "get", path: "/api/v1/fleet", summary: "The live fleet: hosts, GPUs, their states and who runs on them (a display token gets the display scope only)", access: "user" },
  { method: "get", path: "/api/v1/gpus/{uuid}/history", summary: "One GPU's history beyond the live 15 minutes", access: "user", query: rangeQuerySchema },
  { method: "get", path: "/api/v1/reservations", summary: "My bookings (?all=1: everyone's, admins), current first", access: "user", query: bookingListQuerySchema },
  {
    method: "post",
    path: "/api/v1/reservations",
    summary:
      "Book GPUs: the reservation and its launch settings; 409 with the bookings in the way. With nodes + gpusPerNode (+ model) or parts: one booking across nodes, all parts or none, each part with its node's launch settings",
    access: "user",
    body: z.union([bookingRequestSchema, multiNodeRequestSchema]),
    success: 201,
  },
  {
    method: "post",
    path: "/api/v1/reservations/recurring",
    summary: "Book a weekly series (up to 12 weeks): each occurrence checked like a single booking; the refused ones listed with their reasons",
    access: "user",
    body: z.union([recurringRequestSchema, recurringMultiNodeRequestSchema]),
    success: 201,
  },
  { method: "get", path: "/api/v1/reservations/{id}", summary: "One reservation with its launch settings and changes", access: "user" },
  { method: "patch", path: "/api/v1/reservations/{id}", summary: "Extend or shorten a reservation", access: "user", body: bookingChangeSchema },
  { method: "post", path: "/api/v1/reservations/{id}/release", summary: "Give the GPUs back now", access: "user" },
  {
    method: "post",
    path: "/api/v1/reservations/{id}/replace-part",
    summary: "Move a node of a booking across nodes to another host (default: the spare offered) from now to the end; every node's new launch lines",
    access: "user",
    body: replacePartSchema,
  },
  {
    method: "get",
    path: "/api/v1/reservations/{id}/spare",
    summary: "The spare node offered for a node of a booking across nodes: { spare: { hostName, gpuIndices, sameFabric } | null }",
    access: "user",
  },
  { method: "post", path: "/api/v1/reservations/{id}/keep", summary: "Keep an idle booking: its idle clock starts again (at most idleKeepsPerBooking times; audited)", access: "user" },
  { method: "get", path: "/api/v1/idle-exemptions", summary: "Idle release's exemptions, and what report-only mode would have released", access: "admin" },
  { method: "post", path: "/api/v1/idle-exemptions", summary: "Exempt a host, a person or one booking from idle release (audited)", access: "admin", body: idleExemptionSchema, success: 201 },
  { method: "delete", path: "/api/v1/idle-exemptions/{id}", summary: "Remove an idle release exemption (audited)", access: "admin", success: 204 },
  { method: "post", path: "/api/v1/reservations/{id}/cancel", summary: "End someone's booking with a reason the booker sees", access: "admin", body: bookingCancelSchema },
  { method: "get", path: "/api/v1/waitlist", summary: "The queue in order of service, with estimated starts (?mine=1: mine)", access: "user" },
  { method: "post", path: "/api/v1/waitlist", summary: "Wait for GPUs that are taken (or for nodes × GPUs per node across nodes, granted whole); granted as a reservation when they free up", access: "user", body: z.union([waitRequestSchema, multiNodeWaitRequestSchema]), success: 201 },
  { method: "get", path: "/api/v1/waitlist/{id}", summary: "One waiting request: its place, or its reservation once granted", access: "user" },
  { method: "delete", path: "/api/v1/waitlist/{id}", summary: "Stop waiting", access: "user", success: 204 },
  { method: "get", path: "/api/v1/policies", summary: "The booking rules", access: "user" },
  { method: "get", path: "/api/v1/teams", summary: "Teams with their members, limits and fair-share weights", access: "user" },
  { method: "post", path: "/api/v1/teams", summary: "Make a team (optionally with limits and a share)", access: "admin", body: teamCreateSchema, success: 201 },
  { method: "patch", path: "/api/v1/teams/{id}", summary: "Rename a team, change its share or its limits (null clears one)", access: "admin", body: teamUpdateSchema },
  { method: "delete", path: "/api/v1/teams/{id}", summary: "Delete a team and its memberships (its bookings keep their history)", access: "admin", success: 204 },
  { method: "post", path: "/api/v1/teams/{id}/members", summary: "Add a person to a team, or change their lead and accounting flags there", access: "admin", body: teamMemberSchema },
  { method: "delete", path: "/api/v1/teams/{id}/members/{userId}", summary: "Take a person out of a team", access: "admin" },
  { method: "put", path: "/api/v1/users/{id}/limits", summary: "A person's own limits, which override their team's for them", access: "admin", body: personLimitsSchema },
  { method: "get", path: "/api/v1/me/limits", summary: "The limits that apply to me (?team=) and the room left now", access: "user", query: z.object({ team: z.string().max(64).optional() }) },
  { method: "put", path: "/api/v1/policies", summary: "Change the booking rules", access: "admin", body: policySchema },
  { method: "get", path: "/api/v1/demo", summary: "Demo or lab: the stored choice, and whether the page asks this viewer", access: "user" },
  { method: "post", path: "/api/v1/demo", summary: "Choose: \"lab\" ends the demo for good (gpudesk demo off)", access: "admin", body: demoChoiceSchema },
  { method: "get", path: "/api/v1/alerts", summary: "Alerts (conflicts, idle bookings, OOM risk, lost GPUs, silent hosts)", access: "user", query: alertQuerySchema },
  { method: "get", path: "/api/v1/alerts/summary", summary: "Open alerts that concern me, and how many nobody acknowledged", access: "user" },
  { method: "post", path: "/api/v1/alerts/{id}/acknowledge", summary: "Acknowledge an alert: it stays open but leaves the badge", access: "user" },
  { method: "get", path: "/api/v1/webhooks", summary: "Webhooks (?scope=admin|personal)", access: "user", query: webhookScopeSchema },
  { method: "post", path: "/api/v1/webhooks", summary: "Add a webhook", access: "user", body: webhookInputSchema, success: 201 },
  { method: "patch", path: "/api/v1/webhooks/{id}", summary: "Change a webhook", access: "user", body: webhookPatchSchema },
  { method: "delete", path: "/api/v1/webhooks/{id}", summary: "Remove a webhook", access: "user", success: 204 },
  { method: "post", path: "/api/v1/webhooks/{id}/test", summary: "Send a test delivery", access: "user" },
  { method: "get", path: "/api/v1/webhook-deliveries", summary: "Recent webhook deliveries and their outcome", access: "user", query: deliveryQuerySchema },
  { method: "get", path: "/api/v1/usage", summary: "The usage report of a range (the fleet for admins, one's own for members)", access: "user", query: rangeQuerySchema.and(usageOptionsSchema) },
  { method: "get", path: "/api/v1/usage/export", summary: "The usage report as CSV", access: "user", query: rangeQuerySchema.and(usageOptionsSchema), produces: "text/csv" },
  { method: "get", path: "/api/v1/usage/teams", summary: "GPU-hours per team and person: booked (as the quotas count) and used without a booking, by who ran it (admins; a lead for their team); ?format=csv", access: "user", query: teamUsageQuerySchema },
  { method: "get", path: "/api/v1/usage/reservations", summary: "Mean utilization during each of these bookings", access: "user", query: efficiencyQuerySchema },
  { method: "get", path: "/api/v1/tokens", summary: "My personal API tokens (prefixes only)", access: "user" },
  { method: "post", path: "/api/v1/tokens", summary: "Create a personal API token (answered this once)", access: "user", body: createTokenSchema, success: 201 },
  { method: "delete", path: "/api/v1/tokens/{id}", summary: "Revoke a personal API token", access: "user", success: 204 },
  { method: "get", path: "/api/v1/users", summary: "People", access: "admin" },
  { method: "post", path: "/api/v1/users", summary: "Create an account; 409 demo_account when a demo person of the simulated fleet has the username or Unix login (send takeOverDemo: true after asking)", access: "admin", body: createUserSchema, success: 201 },
  { method: "patch", path: "/api/v1/users/{id}", summary: "Change a person's name, role, Unix login or access, or set a password: temporary (changed at their next sign-in) unless mustChangePassword is false; their sessions end. 409 demo_account: a demo person has the Unix login (send takeOverDemo: true after asking)", access: "admin", body: updateUserSchema },
  { method: "get", path: "/api/v1/hosts", summary: "GPU hosts", access: "admin" },
  { method: "post", path: "/api/v1/hosts", summary: "Register a host: its agent token, answered this once", access: "admin", body: createHostSchema, success: 201 },
  { method: "patch", path: "/api/v1/hosts/{id}", summary: "Name the host's fabric (rack, switch; null clears it): booking across nodes keeps a job's nodes on one; map it to a Slurm NodeName (slurmNode; null: its own name)", access: "admin", body: hostPatchSchema },
  { method: "delete", path: "/api/v1/hosts/{id}", summary: "Remove a host (409 while it has bookings on record)", access: "admin", success: 204 },
  { method: "post", path: "/api/v1/hosts/{id}/rotate", summary: "A new agent token; the old one stops working", access: "admin" },
  { method: "get", path: "/api/v1/host-settings", summary: "Every host's enforcement setting and whether its agent allows enforcement", access: "admin" },
  { method: "put", path: "/api/v1/host-settings/{hostId}", summary: "Terminate intruders on a host after a grace period, or not", access: "admin", body: hostSettingInputSchema },
  { method: "get", path: "/api/v1/displays", summary: "Wall displays", access: "admin" },
  { method: "post", path: "/api/v1/displays", summary: "Add a wall display: its read-only token, answered this once", access: "admin", body: createDisplaySchema, success: 201 },
  { method: "patch", path: "/api/v1/displays/{id}", summary: "Change a wall display's settings: `namesUnbookedRunner` (name who runs without a booking)", access: "admin", body: updateDisplaySchema },
  { method: "delete", path: "/api/v1/displays/{id}", summary: "Remove a wall display", access: "admin", success: 204 },
  { method: "get", path: "/api/v1/audit", summary: "The audit log: every admin and security action (who, when, from which address, before and after), newest first; ?kind= ?person= ?since= ?until=", access: "admin", query: auditQuerySchema },
];

/** The one error shape of every route (server/http/api-handler.ts). */
const errorSchema = z.object({
  error: z.object({
    code: z.enum(["bad_request", "unauthorized", "forbidden", "not_found", "conflict", "gpu_in_use", "rate_limited", "payload_too_large", "database_busy", "internal"]),
    message: z.string().describe("Safe to show to the person"),
    fields: z.record(z.string(), z.string()).optional().describe("Per-field messages of a 400"),
  }),
});

/** The request side of a schema: what a client sends (before defaults and transforms). */
function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

function queryParameters(schema: z.ZodType): Record<string, unknown>[] {
  const described = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[]; allOf?: { properties?: Record<string, unknown>; required?: string[] }[] };
  const parts = described.allOf ?? [described];
  return parts.flatMap((part) =>
    Object.entries(part.properties ?? {}).map(([name, property]) => ({ name, in: "query", required: part.required?.includes(name) ?? false, schema: property })),
  );
}

function pathParameters(path: string): Record<string, unknown>[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => ({ name: match[1], in: "path", required: true, schema: { type: "string", maxLength: 128 } }));
}

function describeOperation(operation: Operation): Record<string, unknown> {
  const errors = ["400", "401", "403", "404", "409"].filter((status) => operation.access !== "public" || status === "400");
  const success = operation.success ?? 200;
  return {
    summary: operation.summary,
    ...(operation.access === "admin" ? { description: "Admins only." } : {}),
    ...(operation.access === "public" ? { security: [] } : {}),
    parameters: [...pathParameters(operation.path), ...(operation.query ? queryParameters(operation.query) : [])],
    ...(operation.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(operation.body) } } } } : {}),
    responses: {
      [success]: success === 204 ? { description: "Done" } : { description: "OK", content: { [operation.produces ?? "application/json"]: {} } },
      ...Object.fromEntries(errors.map((status) => [status, { $ref: "#/components/responses/Error" }])),
    },
  };
}

/** The OpenAPI 3.1 document of gpudesk's REST API, served at GET /api/v1/openapi.json. */
export function openApiDocument(serverUrl?: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS) (paths[operation.path] ??= {})[operation.method] = describeOperation(operation);
  return {
    openapi: "3.1.0",
    info: {
      title: "gpudesk",
      version: GPUDESK_VERSION,
      description: "See, book and settle who uses which GPU. Authenticate with a personal token (`Authorization: Bearer gpd_pat_…`, from Settings or `gpudesk token create`) or a signed-in browser session. Deprecated since 0.4, kept beside the new names for this version: `holder`, `holderName`, `holderId`, `holderUsername`, `holderUntil` and `holders` (now `bookedBy`, `bookedByName`, `bookedById`, `bookedByUsername`, `bookedUntil`, `bookers`: the booking's person) and a process's `person` (now `runner`: who really runs it).",
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    security: [{ bearer: [] }, { session: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "A personal API token (gpd_pat_…) or, for GET /api/v1/fleet (display scope), a display token" },
        session: { type: "apiKey", in: "cookie", name: "better-auth.session_token" },
      },
      responses: { Error: { description: "The one error shape", content: { "application/json": { schema: jsonSchema(errorSchema) } } } },
    },
  };
}
