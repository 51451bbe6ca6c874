"use client";

import type { BookingConflict, ConflictSuggestion } from "@/lib/domain/booking-types";
import { unitNameOfRef } from "@/lib/domain/gpu-availability";
import { formatWhen } from "@/lib/format/local-time";
import { personName } from "@/lib/format/person-name";
import { buttonClass } from "@/components/ui/button-styles";

interface ConflictNoticeProps {
  conflicts: BookingConflict[];
  /** The server's own sentence, shown when no booking is in the way (someone runs there unbooked, a host is down). */
  message?: string;
  suggestion: ConflictSuggestion;
  /** When the request was to start: a conflict that began before it reads "until". */
  requestedStartMs: number;
  nowMs: number;
  onStartAt?: (iso: string) => void;
  onTakeGpus?: (indices: number[]) => void;
  /** Offered for "any N GPUs now": wait in the queue instead. */
  onQueue?: () => void;
}

/**
 * The server's 409 in the viewer's words and zone: who holds what until
 * when, and one click to what is free instead.
 */
export function ConflictNotice({ conflicts, message, suggestion, requestedStartMs, nowMs, onStartAt, onTakeGpus, onQueue }: ConflictNoticeProps) {
  return (
    <div role="alert" className="space-y-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
      <p className="font-medium">{conflicts.length > 0 || !message ? "Those GPUs are taken for that time." : message}</p>
      <ul className="list-disc space-y-1 pl-5">
        {conflicts.slice(0, 5).map((conflict) => (
          <li key={`${conflict.reservationId}-${conflict.gpuUuid}`}>
            {unitNameOfRef(conflict.gpuIndex, conflict.slice)} on {conflict.hostName} is booked by{" "}
            <strong>{personName(conflict.bookedBy, conflicts.map((entry) => entry.bookedBy))}</strong>{" "}
            {Date.parse(conflict.startsAt) > requestedStartMs ? `from ${formatWhen(conflict.startsAt, nowMs)} ` : ""}
            until {formatWhen(conflict.endsAt, nowMs)} <span className="text-amber-800 dark:text-amber-300">({conflict.purpose})</span>
            {conflict.freeAt && conflict.freeAt !== conflict.endsAt && (
              <>
                {conflict.thenHeldBy?.length ? `, then by ${conflict.thenHeldBy.map((person) => personName(person, conflict.thenHeldBy ?? [])).join(" and ")}` : ""}; next free{" "}
                {formatWhen(conflict.freeAt, nowMs)}
              </>
            )}
          </li>
        ))}
        {conflicts.length > 5 && <li>and {conflicts.length - 5} more</li>}
      </ul>
      <div className="flex flex-wrap gap-2 pt-1">
        {onQueue && (
          <button type="button" className={buttonClass("primary", "sm")} onClick={onQueue}>
            Queue me: book them when they free up
          </button>
        )}
        {suggestion.nextFreeAt && onStartAt && (
          <button type="button" className={buttonClass("secondary", "sm")} onClick={() => onStartAt(suggestion.nextFreeAt as string)}>
            Start {formatWhen(suggestion.nextFreeAt, nowMs)} instead
          </button>
        )}
        {suggestion.freeGpuIndices.length > 0 && onTakeGpus && (
          <button type="button" className={buttonClass("secondary", "sm")} onClick={() => onTakeGpus(suggestion.freeGpuIndices)}>
            Choose from free GPU{suggestion.freeGpuIndices.length > 1 ? "s" : ""} {suggestion.freeGpuIndices.join(", ")}
          </button>
        )}
        {suggestion.latestEndAt && <p>It can run until {formatWhen(suggestion.latestEndAt, nowMs)}.</p>}
        {!onQueue && !suggestion.nextFreeAt && suggestion.freeGpuIndices.length === 0 && !suggestion.latestEndAt && (
          <p>Nothing fits within the booking rules; try a shorter time.</p>
        )}
      </div>
    </div>
  );
}

/** The conflict data out of an API error, if it is a booking conflict. */
export function conflictOf(body: Record<string, unknown> | undefined): { conflicts: BookingConflict[]; suggestion: ConflictSuggestion; message: string } | null {
  if (!body || !Array.isArray(body.conflicts) || typeof body.suggestion !== "object" || body.suggestion === null) return null;
  return { conflicts: body.conflicts as BookingConflict[], suggestion: body.suggestion as ConflictSuggestion, message: typeof body.message === "string" ? body.message : "" };
}
