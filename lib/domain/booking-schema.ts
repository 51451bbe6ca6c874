import * as z from "zod";
import { text } from "@/lib/domain/plain-text";

/**
 * The booking contracts, shared by the forms in the browser and the REST API
 * on the server: one schema per request, so a form and its route can never
 * disagree on what is valid. Time rules that need "now" or the policy (past,
 * too far ahead, too long) are the server's; these schemas check shape.
 */

export const PURPOSE_MAX = 200;
export const REASON_MAX = 500;
export const HOST_NAME_MAX = 63;
export const MAX_GPUS_PER_REQUEST = 64;
/** The longest booking any policy may allow: a year, in minutes. */
export const DURATION_MAX_MINUTES = 366 * 24 * 60;
export const ADVANCE_MAX_DAYS = 366;

const isoTime = z.iso.datetime({
  offset: true,
  error: "Give a time with its zone, e.g. 2026-11-30T14:00:00Z",
});

/** "0:1": GPU 0, MIG device 1. */
export const SLICE_REF = /^\d{1,4}:\d{1,4}$/;
/** "3g.40gb", "1g.10gb+me", "1c.3g.71gb". */
export const SLICE_PROFILE = /^(?:\d+c\.)?\d+g\.\d+gb(?:\+me)?$/i;

const hostName = text().trim().min(1, "Choose a host").max(HOST_NAME_MAX, `A host name has at most ${HOST_NAME_MAX} characters`);

/** When, how long, what for and for which team: the same for a booking of one host and one across nodes. */
const bookingTimeFields = {
  startsAt: isoTime.optional(),
  endsAt: isoTime.optional(),
  durationMinutes: z
    .int("Enter whole minutes")
    .min(1, "A booking lasts at least 1 minute")
    .max(DURATION_MAX_MINUTES, "A booking lasts at most a year")
    .optional(),
  purpose: text("Say what the GPUs are for")
    .trim()
    .min(1, "Say what the GPUs are for")
    .max(PURPOSE_MAX, `At most ${PURPOSE_MAX} characters`),
  /** The team the booking is for (name or id); the person's accounting team when absent. */
  team: text().trim().min(1).max(64, "At most 64 characters").optional(),
};

function checkBookingTimes(
  value: { startsAt?: string; endsAt?: string; durationMinutes?: number },
  issue: (path: string, message: string) => void,
): void {
  if (value.endsAt !== undefined && value.durationMinutes !== undefined) {
    issue("endsAt", "Give an end time or a duration, not both");
  }
  if (value.endsAt === undefined && value.durationMinutes === undefined) issue("durationMinutes", "Choose how long you need the GPUs");
  if (value.endsAt !== undefined && value.startsAt !== undefined && Date.parse(value.endsAt) <= Date.parse(value.startsAt)) {
    issue("endsAt", "The end must be after the start");
  }
}

export const bookingRequestSchema = z
  .strictObject({
    host: hostName.optional(),
    gpus: z
      .array(z.int("A GPU index is a whole number").min(0, "A GPU index is 0 or more").max(1023, "A GPU index is at most 1023"))
      .min(1, "Choose at least one GPU")
      .max(MAX_GPUS_PER_REQUEST, `At most ${MAX_GPUS_PER_REQUEST} GPUs in one booking`)
      .optional(),
    /**
     * MIG slices by "GPU:MIG device" ("0:1"), as NVIDIA's container toolkit
     * names them: the unit of booking on a GPU in MIG mode.
     */
    slices: z
      .array(text().regex(SLICE_REF, 'A slice is named GPU:MIG device, e.g. "0:1"'))
      .min(1, "Choose at least one slice")
      .max(MAX_GPUS_PER_REQUEST, `At most ${MAX_GPUS_PER_REQUEST} slices in one booking`)
      .optional(),
    /**
     * With `count`: any N MIG slices instead of whole GPUs, each at least
     * this profile ("3g.40gb": three compute slices and 40 GB, or larger)
     * and with at least this much memory.
     */
    slice: z
      .strictObject({
        profile: text().trim().regex(SLICE_PROFILE, 'A MIG profile, e.g. "3g.40gb"').max(32).optional(),
        minMemoryMiB: z.int("Enter whole MiB").min(0, "Memory cannot be negative").max(16 * 1024 * 1024, "That is more memory than any GPU has").optional(),
      })
      .optional(),
    count: z
      .int("Enter a whole number of GPUs")
      .min(1, "Ask for at least 1 GPU")
      .max(MAX_GPUS_PER_REQUEST, `At most ${MAX_GPUS_PER_REQUEST} GPUs in one booking`)
      .optional(),
    minFreeMemoryMiB: z.int("Enter whole MiB").min(0, "Free memory cannot be negative").max(16 * 1024 * 1024, "That is more memory than any GPU has").optional(),
    ...bookingTimeFields,
    /** Book named GPUs even though someone else's processes run there now (answered 409 `gpu_in_use` without it). */
    allowBusy: z.boolean("allowBusy is true or false").optional(),
  })
  .superRefine((value, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (value.gpus && value.count !== undefined) issue("count", "Choose specific GPUs or a number of GPUs, not both");
    if (value.slices && value.count !== undefined) issue("count", "Choose specific slices or a number of slices, not both");
    if (value.slices && value.gpus) issue("slices", "Book whole GPUs or MIG slices, not both: CUDA shows a process one MIG device and no GPU beside it");
    if (value.slice && value.count === undefined) issue("slice", "A slice profile or memory applies when you ask for a number of slices");
    if (value.slices && value.host === undefined) issue("host", "Choose the host of these slices");
    if (value.slices && new Set(value.slices).size !== value.slices.length) issue("slices", "Choose each slice only once");
    if (!value.gpus && !value.slices && value.count === undefined) issue("gpus", "Choose at least one GPU, or ask for a number of GPUs");
    if (value.gpus && value.host === undefined) issue("host", "Choose the host of these GPUs");
    if (value.gpus && new Set(value.gpus).size !== value.gpus.length) issue("gpus", "Choose each GPU only once");
    if (!value.gpus && !value.slices && value.allowBusy === true) issue("allowBusy", "Booking over running work only applies to specific GPUs");
    if (value.gpus && value.minFreeMemoryMiB !== undefined) {
      issue("minFreeMemoryMiB", "Free memory only applies when you ask for a number of GPUs");
    }
    checkBookingTimes(value, issue);
  });

export type BookingRequest = z.infer<typeof bookingRequestSchema>;

/** The most nodes one booking may span. */
export const MAX_NODES = 32;

const gpusPerNode = z
  .int("Enter a whole number of GPUs per node")
  .min(1, "Ask for at least 1 GPU per node")
  .max(MAX_GPUS_PER_REQUEST, `At most ${MAX_GPUS_PER_REQUEST} GPUs per node`);

/**
 * What a request across nodes asks for, whether booked now or waiting
 * (lib/domain/waitlist-schema.ts): any `nodes` hosts with `gpusPerNode` GPUs
 * each, or the `parts`, of `model` when given.
 */
export function multiNodeShapeFields() {
  return {
    nodes: z.int("Enter a whole number of nodes").min(2, "Across nodes means 2 nodes or more").max(MAX_NODES, `At most ${MAX_NODES} nodes`).optional(),
    gpusPerNode: gpusPerNode.optional(),
    /** A GPU model every node's GPUs must match ("H100" matches "NVIDIA H100 80GB HBM3"). */
    model: text().trim().min(1, "Name a GPU model, e.g. H100").max(64, "At most 64 characters").optional(),
    parts: z
      .array(
        z.strictObject({
          host: hostName,
          gpus: z.union([
            gpusPerNode,
            z
              .array(z.int("A GPU index is a whole number").min(0, "A GPU index is 0 or more").max(1023, "A GPU index is at most 1023"))
              .min(1, "Choose at least one GPU")
              .max(MAX_GPUS_PER_REQUEST, `At most ${MAX_GPUS_PER_REQUEST} GPUs per node`),
          ]),
        }),
      )
      .min(2, "Across nodes means 2 parts or more")
      .max(MAX_NODES, `At most ${MAX_NODES} nodes`)
      .optional(),
  };
}

/** What nodes, GPUs per node and model, or parts, a request across nodes asks for. */
export interface MultiNodeShapeRequest {
  nodes?: number;
  gpusPerNode?: number;
  model?: string;
  parts?: { host: string; gpus: number | number[] }[];
}

/** Nodes and GPUs per node, or the parts, never both; each host and GPU named once. */
export function checkMultiNodeShape(value: MultiNodeShapeRequest, issue: (path: string, message: string) => void): void {
  if (value.parts && (value.nodes !== undefined || value.gpusPerNode !== undefined)) issue("parts", "Give nodes and GPUs per node, or the parts, not both");
  if (!value.parts && value.nodes === undefined) issue("nodes", "Say how many nodes you need");
  if (!value.parts && value.gpusPerNode === undefined) issue("gpusPerNode", "Say how many GPUs you need on each node");
  if (value.parts && new Set(value.parts.map((part) => part.host)).size !== value.parts.length) issue("parts", "Name each host once");
  for (const part of value.parts ?? []) {
    if (Array.isArray(part.gpus) && new Set(part.gpus).size !== part.gpus.length) issue("parts", `Choose each GPU of ${part.host} only once`);
  }
}

/** The GPUs a request across nodes asks for, every part together. */
export function multiNodeGpuCount(value: MultiNodeShapeRequest): number {
  if (value.parts) return value.parts.reduce((sum, part) => sum + (typeof part.gpus === "number" ? part.gpus : part.gpus.length), 0);
  return (value.nodes ?? 0) * (value.gpusPerNode ?? 0);
}

/**
 * One booking across nodes: any `nodes` hosts with `gpusPerNode` free GPUs
 * each (of `model`, when given), or explicit `parts` (a host and its GPUs:
 * a number, or the indices). Every part is an ordinary booking of one host;
 * all are made together or none.
 */
export const multiNodeRequestSchema = z
  .strictObject({ ...multiNodeShapeFields(), ...bookingTimeFields })
  .superRefine((value, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    checkMultiNodeShape(value, issue);
    checkBookingTimes(value, issue);
  });

export type MultiNodeRequest = z.infer<typeof multiNodeRequestSchema>;

/** `POST /api/v1/reservations/:id/replace-part`: move a failed node to this host, or to the spare gpudesk offers. */
export const replacePartSchema = z.strictObject({ host: hostName.optional() });

/** A request body that books across nodes rather than on one host: the route picks the schema by this. */
export function isMultiNodeBody(body: unknown): boolean {
  return typeof body === "object" && body !== null && ("nodes" in body || "parts" in body || "gpusPerNode" in body);
}

/** PATCH: a new end (extend or shorten), absolute or relative; an admin changing someone else's booking gives a reason. */
export const bookingChangeSchema = z
  .strictObject({
    endsAt: isoTime.optional(),
    addMinutes: z
      .int("Enter whole minutes")
      .min(-DURATION_MAX_MINUTES, "That is more than a year")
      .max(DURATION_MAX_MINUTES, "That is more than a year")
      .refine((minutes) => minutes !== 0, "Add or remove at least 1 minute")
      .optional(),
    reason: text().trim().max(REASON_MAX, `At most ${REASON_MAX} characters`).optional(),
  })
  .superRefine((value, ctx) => {
    if ((value.endsAt === undefined) === (value.addMinutes === undefined)) {
      ctx.addIssue({ code: "custom", path: ["endsAt"], message: "Give either a new end time or minutes to add" });
    }
  });

export type BookingChange = z.infer<typeof bookingChangeSchema>;

export const bookingCancelSchema = z.strictObject({
  reason: text("Tell the booker why")
    .trim()
    .min(1, "Tell the booker why")
    .max(REASON_MAX, `At most ${REASON_MAX} characters`),
});

export const policySchema = z.strictObject({
  maxDurationMinutes: z
    .int("Enter whole minutes")
    .min(15, "Allow at least 15 minutes")
    .max(DURATION_MAX_MINUTES, "At most a year"),
  maxGpusPerUser: z.int("Enter a whole number").min(1, "Allow at least 1 GPU").max(4096, "At most 4096"),
  maxAdvanceDays: z.int("Enter whole days").min(0, "0 or more days").max(ADVANCE_MAX_DAYS, `At most ${ADVANCE_MAX_DAYS} days`),
  // Idle release (server/idle-release/): each optional, an omitted one stays as it is.
  idleReleaseAfterMinutes: z.int("Enter whole minutes").min(0, "0 (off) or more minutes").max(DURATION_MAX_MINUTES, "At most a year").optional(),
  idleWarningMinutes: z.int("Enter whole minutes").min(1, "Warn at least 1 minute before").max(DURATION_MAX_MINUTES, "At most a year").optional(),
  idleBelowPct: z.int("Enter a whole percentage").min(1, "At least 1 %").max(100, "At most 100 %").optional(),
  idleKeepsPerBooking: z.int("Enter a whole number").min(0, "0 or more").max(1000, "At most 1000").optional(),
  idleReportOnly: z.boolean().optional(),
}).superRefine((policy, context) => {
  const conflict = idleTimesConflict(policy.idleReleaseAfterMinutes, policy.idleWarningMinutes);
  if (conflict) context.addIssue({ code: "custom", path: ["idleWarningMinutes"], message: conflict });
});

export type PolicyInput = z.infer<typeof policySchema>;

/**
 * Why idle release's times contradict each other, or null: the warning comes
 * that long before the release, so it must be shorter than the idle time
 * after which the release comes (0: release off, nothing to contradict).
 */
export function idleTimesConflict(releaseAfterMinutes: number | undefined, warningMinutes: number | undefined): string | null {
  if (releaseAfterMinutes === undefined || warningMinutes === undefined || releaseAfterMinutes === 0) return null;
  if (warningMinutes < releaseAfterMinutes) return null;
  return `The warning comes before the release: make it shorter than the ${releaseAfterMinutes} idle minutes after which a booking is released`;
}

/** A booking id in a URL; anything else is not one of ours. */
export const bookingIdSchema = text().min(1).max(64, "Not a reservation id");

const flag = z
  .enum(["1", "0", "true", "false"])
  .optional()
  .transform((value) => value === "1" || value === "true");

/** `GET /api/v1/reservations?all=1&state=current&limit=50` */
export const bookingListQuerySchema = z.object({
  all: flag,
  state: z.enum(["current", "past", "all"]).default("all"),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});

/** `GET /api/v1/audit?limit=100&cursor=…&entityType=reservation&entityId=…` */
export { auditQuerySchema } from "@/lib/domain/audit";

/** Reads a query string into a plain object for the schemas above. */
export function searchParamsObject(params: URLSearchParams): Record<string, string> {
  const object: Record<string, string> = {};
  for (const [key, value] of params) object[key] ??= value;
  return object;
}

/** zod issues as `{ field: message }`, the first per field: what forms show next to each field. */
export function issuesToFields(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.length > 0 ? String(issue.path[0]) : "_";
    fields[key] ??= issue.message;
  }
  return fields;
}
