import { AUDIT_ACTION_LABELS, type AuditEntryView, type KnownAuditAction } from "@/lib/domain/audit";
import { unitsPhrase, type UnitName } from "@/lib/domain/gpu-availability";

type Entry = Pick<AuditEntryView, "action" | "entityType" | "before" | "after">;
type Fields = Record<string, unknown>;

/** An ISO time as the server writes them ("2026-12-05T02:22:20.000Z"); shown in the one time format instead. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

function fieldsOf(value: unknown): Fields | null {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : null;
}

/** "releasedBecause" → "released because", "idle_since" → "idle since". */
function words(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/_/g, " ")
    .toLowerCase();
}

/** The label of an action; one the labels do not know yet still reads as words ("enforcement.sigterm" → "Enforcement: sigterm"). */
export function auditActionLabel(action: string): string {
  const known = AUDIT_ACTION_LABELS[action as KnownAuditAction];
  if (known) return known;
  const [kind, ...rest] = action.split(".");
  const what = words(rest.join(" ")) || "changed";
  return `${words(kind).replace(/^./, (first) => first.toUpperCase())}: ${what}`;
}

/**
 * A value in words: times in the one time format, GPUs by index, nothing
 * left as "undefined" or "[object Object]".
 */
function show(value: unknown, time: (iso: string) => string): string {
  if (value === null || value === undefined || value === "") return "none";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "string") return ISO_TIME.test(value) && !Number.isNaN(Date.parse(value)) ? time(value) : value;
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return "none";
    return value.map((item) => gpuName(item) ?? show(item, time)).join(", ");
  }
  const fields = fieldsOf(value);
  if (fields) {
    const parts = Object.entries(fields)
      .filter(([, inner]) => inner !== undefined)
      .map(([key, inner]) => `${words(key)} ${show(inner, time)}`);
    return parts.length > 0 ? `(${parts.join(", ")})` : "none";
  }
  return String(value);
}

/** A GPU as an audit entry lists it ({ index, uuid }, or a slice with its profile; since issue 37 with its `unit` name). */
function gpuName(item: unknown): string | null {
  const fields = fieldsOf(item);
  if (!fields || (typeof fields.index !== "number" && typeof fields.index !== "string")) return null;
  if (typeof fields.unit === "string") return fields.unit;
  const mig = fieldsOf(fields.mig);
  return mig && mig.deviceIndex !== undefined ? `${fields.index}:${String(mig.deviceIndex)}${typeof mig.profile === "string" ? ` (${mig.profile})` : ""}` : String(fields.index);
}

/** An audit entry's unit ({ index, mig? }) as the unit rules read it; null when it is not one. */
function unitNameOf(fields: Fields): UnitName | null {
  if (typeof fields.index !== "number") return null;
  const mig = fieldsOf(fields.mig);
  if (!mig) {
    // An entry that names its unit ("GPU 0:2 (1g.10gb)") and carries no mig block is a slice all the same.
    const slice = typeof fields.unit === "string" ? /^GPU \d+:(\d+) \((.+)\)$/.exec(fields.unit) : null;
    return slice ? { index: fields.index, mig: { deviceIndex: Number(slice[1]), profile: slice[2]! } } : { index: fields.index };
  }
  return typeof mig.deviceIndex === "number" ? { index: fields.index, mig: { deviceIndex: mig.deviceIndex, profile: typeof mig.profile === "string" ? mig.profile : "" } } : null;
}

/** A booking as made: "node-a GPU 0, 1 from today 14:00 to today 16:00 for “training”". */
function bookingMade(after: Fields, time: (iso: string) => string): string {
  const gpus = Array.isArray(after.gpus) && after.gpus.length > 0 ? show(after.gpus, time) : null;
  const parts: string[] = [];
  // Entries since issue 37 name each unit as every surface does ("GPU 0:2 (1g.10gb)"); older ones list indices.
  const units = Array.isArray(after.gpus) ? after.gpus.map((item) => fieldsOf(item)?.unit).filter((name): name is string => typeof name === "string") : [];
  // One phrase for the booking's units, as every surface says it ("GPUs 0, 1, 2", "GPU 0:2 (1g.10gb)"); it read "GPU 0, GPU 1, GPU 2".
  const named = Array.isArray(after.gpus) && units.length === after.gpus.length ? after.gpus.map((item) => unitNameOf(fieldsOf(item)!)) : null;
  const unit = named && named.every((entry) => entry !== null) ? unitsPhrase(named as UnitName[]) : units.length > 0 ? units.join(", ") : gpus ? `GPU ${gpus}` : null;
  const where = [typeof after.host === "string" ? after.host : null, unit].filter(Boolean).join(" ");
  if (where) parts.push(where);
  if (after.startsAt !== undefined || after.endsAt !== undefined) parts.push(`from ${show(after.startsAt, time)} to ${show(after.endsAt, time)}`);
  if (typeof after.purpose === "string" && after.purpose.trim()) parts.push(`for “${after.purpose.trim()}”`);
  if (typeof after.team === "string") parts.push(`on team ${after.team}`);
  const rest = Object.entries(after).filter(([key, value]) => !["host", "gpus", "startsAt", "endsAt", "purpose", "team", "status"].includes(key) && value !== undefined);
  // "booked over running work on GPU 0:0 (3g.40gb)": the units, by name (it read "booked over running work 0").
  const phrase = (key: string, value: unknown) => (key === "bookedOverRunningWork" ? `booked over running work on ${show(value, time)}` : `${words(key)} ${show(value, time)}`);
  return [parts.join(" "), ...rest.map(([key, value]) => phrase(key, value))].filter(Boolean).join("; ");
}

/** What changed from `before` to `after`, field by field; a field only one side has is said as such. */
function changes(before: Fields | null, after: Fields | null, time: (iso: string) => string): string[] {
  const parts: string[] = [];
  for (const key of Object.keys({ ...before, ...after })) {
    if (key === "reason") continue;
    const from = before?.[key];
    const to = after?.[key];
    if (JSON.stringify(from) === JSON.stringify(to)) continue;
    if (from === undefined) parts.push(`${words(key)} ${show(to, time)}`);
    else if (to === undefined) parts.push(`${words(key)} was ${show(from, time)}`);
    else parts.push(`${words(key)} ${show(from, time)} → ${show(to, time)}`);
  }
  return parts;
}

/**
 * One row of the audit log as a sentence: the action, then what it did, with
 * every time in the one time format (`time` is the page's `formatWhen`).
 * "Booked node-a GPU 0, 1 from today 14:00 to today 16:00 for “training”."
 */
export function auditSentence(entry: Entry, time: (iso: string) => string): string {
  const before = fieldsOf(entry.before);
  const after = fieldsOf(entry.after);
  const label = auditActionLabel(entry.action);
  let details: string;
  if (!before && after && entry.entityType === "reservation" && Array.isArray(after.gpus)) {
    details = bookingMade(after, time);
  } else {
    // A change of a booking says which booking first ("node-a GPU 0:2 (1g.10gb)"); it is the same before and after.
    const booking = after?.booking ?? before?.booking;
    const parts = [...(typeof booking === "string" ? [booking] : []), ...changes(before, after, time)];
    const reason = after?.reason ?? before?.reason;
    if (reason !== undefined && reason !== null && reason !== "") parts.push(`reason: ${show(reason, time)}`);
    details = parts.join("; ");
  }
  const sentence = details ? `${label}: ${details}` : label;
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
