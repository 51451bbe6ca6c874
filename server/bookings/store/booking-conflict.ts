import type { BookingConflict, BookingConflictBody, ConflictSuggestion } from "@/lib/domain/booking-types";
import { type NamedPerson, personName } from "@/lib/format/person-name";
import { AppError } from "@/server/core/errors";
import { unitNameOfRef } from "@/lib/domain/gpu-availability";

/**
 * A 409 that says who holds what until when, carries the bookings in the
 * way as data, and offers what could be booked instead. Times in the
 * message are UTC ISO; pages build their own sentence from the data, in the
 * viewer's time zone.
 */
export class BookingConflictError extends AppError {
  constructor(
    message: string,
    readonly conflicts: BookingConflict[],
    readonly suggestion: ConflictSuggestion,
  ) {
    super("conflict", message);
  }

  override toJSON(): BookingConflictBody {
    return { error: { code: "conflict", message: this.message, conflicts: this.conflicts, suggestion: this.suggestion } };
  }
}

/** "GPU 2", "GPU 0:2 (1g.10gb)": the unit a conflict is about, as every refusal names it. */
export function conflictUnit(conflict: Pick<BookingConflict, "gpuIndex" | "slice">): string {
  return unitNameOfRef(conflict.gpuIndex, conflict.slice);
}

/**
 * "GPU 2 on node-a is booked by Alice Liddell until 2026-11-30T14:00:00.000Z (purpose: fine-tune)",
 * and when bookings follow back to back: "… (purpose: x), then by Bob; next free at 2026-11-30T16:00:00.000Z"; `others`: the bookers named alongside.
 */
export function describeConflict(conflict: BookingConflict, requestedStartMs: number, others: readonly NamedPerson[] = []): string {
  const when =
    Date.parse(conflict.startsAt) > requestedStartMs
      ? `from ${conflict.startsAt} until ${conflict.endsAt}`
      : `until ${conflict.endsAt}`;
  const named = [conflict.bookedBy, ...(conflict.thenHeldBy ?? []), ...others];
  const then =
    conflict.freeAt && conflict.freeAt !== conflict.endsAt
      ? `${conflict.thenHeldBy?.length ? `, then by ${conflict.thenHeldBy.map((person) => personName(person, named)).join(" and ")}` : ""}; next free at ${conflict.freeAt}`
      : "";
  return `${conflictUnit(conflict)} on ${conflict.hostName} is booked by ${personName(conflict.bookedBy, named)} ${when} (purpose: ${conflict.purpose})${then}`;
}

/** What could be booked instead, as a sentence that follows the reasons. */
export function describeSuggestion(suggestion: ConflictSuggestion, plural: boolean): string {
  const parts: string[] = [];
  if (suggestion.nextFreeAt) parts.push(`${plural ? "They are" : "It is"} free from ${suggestion.nextFreeAt} for as long as you asked`);
  if (suggestion.freeGpuIndices.length > 0 && suggestion.hostName) {
    const list = suggestion.freeGpuIndices.join(", ");
    parts.push(`GPU${suggestion.freeGpuIndices.length > 1 ? "s" : ""} ${list} on ${suggestion.hostName} ${suggestion.freeGpuIndices.length > 1 ? "are" : "is"} free for the time you asked`);
  }
  return parts.length > 0 ? `${parts.join("; ")}.` : "Nothing fits within the booking rules; try a shorter time.";
}

/** The booker's own words first: one line per booking in the way (the first three), then what is free. */
export function conflictMessage(conflicts: BookingConflict[], requestedStartMs: number, suggestion: ConflictSuggestion, plural: boolean): string {
  const bookers = conflicts.map((conflict) => conflict.bookedBy);
  const shown = conflicts.slice(0, 3).map((conflict) => describeConflict(conflict, requestedStartMs, bookers));
  const more = conflicts.length > 3 ? ` (and ${conflicts.length - 3} more)` : "";
  return `${shown.join("; ")}${more}. ${describeSuggestion(suggestion, plural)}`;
}
