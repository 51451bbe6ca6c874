import { requestedWindow } from "@/lib/booking-window";
import { weeklyStarts, type RecurringRequest } from "@/lib/recurrence";
import type { ReservationView } from "@/lib/reservation-types";
import { AppError } from "@/server/errors";
import type { Actor } from "@/server/reservations/actor";
import { createReservation, type CreateOptions } from "@/server/reservations/create-reservation";

export interface RefusedOccurrence {
  startsAt: string;
  endsAt: string;
  code: string;
  message: string;
}

export interface RecurringResult {
  created: ReservationView[];
  refused: RefusedOccurrence[];
}

/**
 * A weekly series: each occurrence is booked on its own, through the one
 * booking transaction with every check a single booking has (overlap,
 * policy, limits), so an occurrence that collides is refused alone and
 * listed with its reason while the others are kept. Errors that are not a
 * refusal of that occurrence (a bug, the database gone) end the series.
 */
export async function createRecurringReservations(actor: Actor, request: RecurringRequest, options: CreateOptions = {}): Promise<RecurringResult> {
  const now = options.now ?? new Date();
  const { startMs, endMs } = requestedWindow(request.booking, now.getTime());
  const durationMinutes = Math.round((endMs - startMs) / 60_000);
  if (durationMinutes < 1) throw new AppError("bad_request", "The end must be after the start", { "booking.durationMinutes": "The end must be after the start" });
  const starts = weeklyStarts(startMs, request.weekdays, request.weeks, request.timeZone);
  if (starts.length === 0) throw new AppError("bad_request", "No day of the series falls on the chosen weekdays", { weekdays: "Choose the weekdays to book" });

  const { endsAt: _endsAt, ...single } = request.booking;
  const created: ReservationView[] = [];
  const refused: RefusedOccurrence[] = [];
  for (const start of starts) {
    const startsAt = new Date(start).toISOString();
    try {
      created.push(await createReservation(actor, { ...single, startsAt, durationMinutes }, options));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      refused.push({ startsAt, endsAt: new Date(start + durationMinutes * 60_000).toISOString(), code: error.code, message: error.message });
    }
  }
  return { created, refused };
}
