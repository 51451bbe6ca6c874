import { DURATION_PRESETS } from "@/lib/domain/booking-window";
import { firstNodeShape, shapeOverLimit } from "@/lib/domain/multi-node";
import { fromLocalInput, toLocalInput } from "@/lib/format/local-time";
import type * as z from "zod";
import { issuesToFields, MAX_NODES, type MultiNodeRequest, multiNodeRequestSchema, bookingRequestSchema, type BookingRequest } from "@/lib/domain/booking-schema";

/**
 * The booking form's values and their way to a request: the form holds
 * what the person typed (local times, GiB, hours), the request what the API
 * takes (UTC ISO, MiB, minutes). Validation is the shared schema's, so the
 * browser and the server say the same thing about the same field.
 */

export type LengthChoice = (typeof DURATION_PRESETS)[number]["id"] | "custom" | "until";

export interface ReserveValues {
  /** Pick GPUs of a host, any N GPUs, or one booking across nodes. */
  mode: "gpus" | "count" | "nodes";
  /** Host name; "" in count mode means any host. */
  host: string;
  gpus: number[];
  /** MIG slices picked, as "GPU:MIG device" ("0:2"); a booking holds slices or whole GPUs. */
  slices: string[];
  count: string;
  minFreeGiB: string;
  /** Across nodes: how many nodes, GPUs on each, and the model ("" any). */
  nodes: string;
  gpusPerNode: string;
  model: string;
  /** Across nodes with named hosts: the host of each node in rank order ("" not chosen yet); null while gpudesk picks them. */
  partHosts: string[] | null;
  startMode: "now" | "at";
  /** datetime-local value in the viewer's zone. */
  startAt: string;
  length: LengthChoice;
  customHours: string;
  endAt: string;
  purpose: string;
}

export type ReserveField =
  | "host"
  | "gpus"
  | "count"
  | "minFreeMemoryMiB"
  | "nodes"
  | "gpusPerNode"
  | "model"
  | "parts"
  | "startsAt"
  | "endsAt"
  | "durationMinutes"
  | "purpose"
  | "_";

export const FIELD_NAMES: ReserveField[] = ["host", "gpus", "count", "minFreeMemoryMiB", "nodes", "gpusPerNode", "model", "parts", "startsAt", "endsAt", "durationMinutes", "purpose"];

export function defaultValues(maxGpusAtOnce = 16): ReserveValues {
  return {
    mode: "gpus",
    host: "",
    gpus: [],
    slices: [],
    count: "1",
    minFreeGiB: "",
    ...firstNodeShape(maxGpusAtOnce),
    model: "",
    partHosts: null,
    startMode: "now",
    startAt: "",
    length: "4h",
    customHours: "8",
    endAt: "",
    purpose: "",
  };
}

/** Values from the address: `/reserve?host=node-a&gpus=0,1&start=<ISO>&minutes=60&end=<ISO>&count=2`, or `slices=0:2` for MIG slices. */
export function valuesFromQuery(query: Record<string, string | undefined>, base: ReserveValues = defaultValues()): ReserveValues {
  const values = { ...base };
  if (query.host) values.host = query.host;
  if (query.gpus) {
    values.gpus = query.gpus
      .split(",")
      .map((part) => Number(part))
      .filter((index) => Number.isInteger(index) && index >= 0);
  }
  if (query.slices) {
    // A slice on the schedule or its GPU page: "0:2", and a booking holds slices or whole GPUs.
    values.slices = query.slices.split(",").filter((part) => /^\d{1,4}:\d{1,4}$/.test(part));
    if (values.slices.length > 0) values.gpus = [];
  }
  if (query.count) {
    values.mode = "count";
    values.count = query.count;
  }
  if (query.nodes) {
    values.mode = "nodes";
    values.nodes = query.nodes;
    if (query.gpusPerNode) values.gpusPerNode = query.gpusPerNode;
    if (query.model) values.model = query.model.slice(0, 64);
  }
  if (query.parts) {
    // "/reserve?parts=node-a,node-b&gpusPerNode=8": across nodes on these hosts.
    const hosts = query.parts.split(",").map((name) => name.trim()).filter(Boolean).slice(0, MAX_NODES);
    if (hosts.length >= 2) {
      values.mode = "nodes";
      values.partHosts = hosts;
      values.nodes = String(hosts.length);
      if (query.gpusPerNode) values.gpusPerNode = query.gpusPerNode;
    }
  }
  const start = query.start ? Date.parse(query.start) : Number.NaN;
  if (Number.isFinite(start)) {
    values.startMode = "at";
    values.startAt = toLocalInput(start);
  }
  const end = query.end ? Date.parse(query.end) : Number.NaN;
  const minutes = query.minutes ? Number(query.minutes) : Number.NaN;
  if (Number.isFinite(end)) {
    values.length = "until";
    values.endAt = toLocalInput(end);
  } else if (Number.isFinite(minutes) && minutes > 0) {
    const preset = DURATION_PRESETS.find((entry) => entry.minutes === minutes);
    values.length = preset ? preset.id : "custom";
    if (!preset) values.customHours = String(Math.round((minutes / 60) * 100) / 100);
  }
  if (query.purpose) values.purpose = query.purpose.slice(0, 200);
  return values;
}

/** The request the values stand for, or the message per field (form-only checks first, then the shared schema). */
export function toRequest(values: ReserveValues): { ok: true; request: BookingRequest } | { ok: false; fields: Partial<Record<ReserveField, string>> } {
  const fields: Partial<Record<ReserveField, string>> = {};
  const raw: Record<string, unknown> = { purpose: values.purpose };

  if (values.mode === "gpus") {
    if (values.host) raw.host = values.host;
    if (values.slices.length > 0) raw.slices = values.slices;
    else raw.gpus = values.gpus;
  } else {
    raw.count = values.count.trim() === "" ? Number.NaN : Number(values.count);
    if (values.host) raw.host = values.host;
    if (values.minFreeGiB.trim() !== "") {
      const gib = Number(values.minFreeGiB);
      if (Number.isFinite(gib)) raw.minFreeMemoryMiB = Math.round(gib * 1024);
      else fields.minFreeMemoryMiB = "Enter a number of GiB";
    }
  }

  addTimes(values, raw, fields);

  return verdict(bookingRequestSchema.safeParse(raw), fields);
}

/** The start and the end or length the values give, into the request; what cannot be read, into `fields`. */
function addTimes(values: ReserveValues, raw: Record<string, unknown>, fields: Partial<Record<ReserveField, string>>): void {
  if (values.startMode === "at") {
    const startsAt = fromLocalInput(values.startAt);
    if (startsAt) raw.startsAt = startsAt;
    else fields.startsAt = "Choose a start date and time";
  }

  const preset = DURATION_PRESETS.find((entry) => entry.id === values.length);
  if (preset) raw.durationMinutes = preset.minutes;
  else if (values.length === "custom") {
    const hours = Number(values.customHours);
    if (values.customHours.trim() !== "" && Number.isFinite(hours)) raw.durationMinutes = Math.round(hours * 60);
    else fields.durationMinutes = "Enter how many hours";
  } else {
    const endsAt = fromLocalInput(values.endAt);
    if (endsAt) raw.endsAt = endsAt;
    else fields.endsAt = "Choose an end date and time";
  }
}

/** The schema's verdict as the form shows it: the request, or a message per field (form-only ones win). */
function verdict<T>(parsed: z.ZodSafeParseResult<T>, fields: Partial<Record<ReserveField, string>>): { ok: true; request: T } | { ok: false; fields: Partial<Record<ReserveField, string>> } {
  if (parsed.success && Object.keys(fields).length === 0) return { ok: true, request: parsed.data };
  const schemaFields = parsed.success ? {} : (issuesToFields(parsed.error) as Partial<Record<ReserveField, string>>);
  // An unreadable end or length was left out of the request; the schema's "choose how long" would only repeat that.
  if (fields.endsAt || fields.durationMinutes) delete schemaFields.durationMinutes;
  return { ok: false, fields: { ...schemaFields, ...fields } };
}

/** The booking across nodes the values stand for ("Across nodes"), checked by the same schema as the API. */
export function toMultiNodeRequest(values: ReserveValues, maxGpusAtOnce = Number.POSITIVE_INFINITY): { ok: true; request: MultiNodeRequest } | { ok: false; fields: Partial<Record<ReserveField, string>> } {
  const fields: Partial<Record<ReserveField, string>> = {};
  const number = (text: string) => (text.trim() === "" ? Number.NaN : Number(text));
  const over = shapeOverLimit(number(values.nodes), number(values.gpusPerNode), maxGpusAtOnce);
  if (over) fields.gpusPerNode = over;
  const raw: Record<string, unknown> = { purpose: values.purpose };
  const hosts = namedPartHosts(values);
  if (hosts) {
    // Named hosts: the API's parts, each node with the same number of GPUs (gpudesk picks which on each host).
    if (hosts.some((host) => host === "")) fields.parts = "Choose a host for each node";
    else if (new Set(hosts).size !== hosts.length) fields.parts = "Choose a different host for each node";
    raw.parts = hosts.map((host) => ({ host, gpus: number(values.gpusPerNode) }));
    if (!Number.isInteger(number(values.gpusPerNode))) fields.gpusPerNode = "Enter a whole number of GPUs per node";
  } else {
    raw.nodes = number(values.nodes);
    raw.gpusPerNode = number(values.gpusPerNode);
  }
  if (values.model.trim() !== "") raw.model = values.model.trim();
  addTimes(values, raw, fields);
  return verdict(multiNodeRequestSchema.safeParse(raw), fields);
}

/** The host of each node when the person names them (one per node, in rank order; "" where none is chosen yet), else null. */
export function namedPartHosts(values: Pick<ReserveValues, "partHosts" | "nodes">): string[] | null {
  if (!values.partHosts) return null;
  const nodes = Math.min(MAX_NODES, Math.max(2, Math.floor(Number(values.nodes)) || 2));
  return Array.from({ length: nodes }, (_, rank) => values.partHosts?.[rank] ?? "");
}

/** The time range the values ask for, for showing which GPUs are free then; null while incomplete. */
export function windowOf(values: ReserveValues, nowMs: number): { startMs: number; endMs: number } | null {
  const startIso = values.startMode === "at" ? fromLocalInput(values.startAt) : undefined;
  if (values.startMode === "at" && !startIso) return null;
  const startMs = startIso ? Math.max(Date.parse(startIso), nowMs) : nowMs;
  const preset = DURATION_PRESETS.find((entry) => entry.id === values.length);
  let endMs: number | null = null;
  if (preset) endMs = startMs + preset.minutes * 60_000;
  else if (values.length === "custom") {
    const hours = Number(values.customHours);
    endMs = Number.isFinite(hours) && hours > 0 ? startMs + hours * 3600_000 : null;
  } else {
    const endIso = fromLocalInput(values.endAt);
    endMs = endIso ? Date.parse(endIso) : null;
  }
  return endMs !== null && endMs > startMs ? { startMs, endMs } : null;
}

/** Server field keys ("gpus.0") to the form's fields. */
export function serverFields(fields: Record<string, string> | undefined): Partial<Record<ReserveField, string>> {
  const out: Partial<Record<ReserveField, string>> = {};
  for (const [key, message] of Object.entries(fields ?? {})) {
    const name = key.split(".")[0] as ReserveField;
    out[FIELD_NAMES.includes(name) ? name : "_"] ??= message;
  }
  return out;
}
