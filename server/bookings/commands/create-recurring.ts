import { requestedWindow } from "@/lib/domain/booking-window";
import { weeklyStarts, type RecurringRequest } from "@/lib/domain/recurrence";
import type { BookingView } from "@/lib/domain/booking-types";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import type { Actor } from "@/server/access/actor";
import { book } from "@/server/bookings/commands/book";
import { acrossNodesOrder, type CreateOptions, oneHostOrder } from "@/server/bookings/commands/booking-order";
import { bookedView } from "@/server/bookings/commands/create-booking";
import type { MultiNodeRequest, BookingRequest } from "@/lib/domain/booking-schema";

export interface RefusedOccurrence {
  startsAt: string;
  endsAt: string;
  code: string;
  message: string;
}

export interface RecurringResult {
  /** One view per occurrence made; across nodes, its node-0 part, whose `multiNode` names every part. */
  created: BookingView[];
  refused: RefusedOccurrence[];
}

/** Series booked at once on this server, and how many more may wait for their turn (the rest are refused). */
const SERIES_AT_ONCE = 1;
const SERIES_WAITING = 4;
let seriesRunning = 0;
const seriesQueue: (() => void)[] = [];

/**
 * A turn to book a series: one at a time, a few waiting, and more at once
 * refused (429) rather than piled up. Eight series of 84 occurrences at once
 * held the database and the event loop for seconds and 160 MiB; one at a
 * time, each yielding after every occurrence, keep both bounded. Answers the
 * function that ends the turn.
 */
async function seriesTurn(): Promise<() => void> {
  const done = () => {
    const next = seriesQueue.shift();
    if (next) next();
    else seriesRunning -= 1;
  };
  if (seriesRunning < SERIES_AT_ONCE) {
    seriesRunning += 1;
    return done;
  }
  if (seriesQueue.length >= SERIES_WAITING) throw new AppError("rate_limited", "Other weekly series are being booked right now: try again in a moment");
  // The turn passes on from the series that ends (done), without a gap another could slip into.
  await new Promise<void>((resolve) => seriesQueue.push(resolve));
  return done;
}

/** One turn of the event loop: the health check, sockets and other requests are answered between occurrences. */
const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A weekly series: N occurrences, each booked on its own through the one
 * pipeline (book.ts) with every check a single booking has (overlap,
 * policy, limits), so an occurrence that collides is refused alone and
 * listed with its reason while the others are kept. Errors that are not a
 * refusal of that occurrence (a bug, the database gone) end the series. One
 * series at a time per server (seriesTurn), yielding after each occurrence.
 * Across nodes, each occurrence is one booking across nodes: every part of
 * it made, or the occurrence refused whole with its reason.
 */
export async function createRecurringBookings(actor: Actor, request: RecurringRequest, options: CreateOptions = {}): Promise<RecurringResult> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  const { startMs, endMs } = requestedWindow(request.booking, now.getTime());
  const durationMinutes = Math.round((endMs - startMs) / 60_000);
  if (durationMinutes < 1) throw new AppError("bad_request", "The end must be after the start", { "booking.durationMinutes": "The end must be after the start" });
  const starts = weeklyStarts(startMs, request.weekdays, request.weeks, request.timeZone);
  if (starts.length === 0) throw new AppError("bad_request", "No day of the series falls on the chosen weekdays", { weekdays: "Choose the weekdays to book" });

  const { endsAt: _endsAt, ...first } = request.booking;
  const orderOf = (startsAt: string) =>
    isAcrossNodes(first) ? acrossNodesOrder(client, { ...first, startsAt, durationMinutes }, now) : oneHostOrder(client, { ...first, startsAt, durationMinutes }, now);
  // Each occurrence as its booking shows it: one across nodes by its node-0 part (whose `multiNode` names every part).
  const bookOccurrence = async (startsAt: string) => bookedView(client, await book(actor, await orderOf(startsAt), options), now, actor.id);
  const created: BookingView[] = [];
  const refused: RefusedOccurrence[] = [];
  const endTurn = await seriesTurn();
  try {
    for (const start of starts) {
      const startsAt = new Date(start).toISOString();
      try {
        created.push(await bookOccurrence(startsAt));
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        refused.push({ startsAt, endsAt: new Date(start + durationMinutes * 60_000).toISOString(), code: error.code, message: error.message });
      }
      await yieldToOthers();
    }
  } finally {
    endTurn();
  }
  return { created, refused };
}

function isAcrossNodes(booking: Omit<BookingRequest, "endsAt"> | Omit<MultiNodeRequest, "endsAt">): booking is Omit<MultiNodeRequest, "endsAt"> {
  return "nodes" in booking || "parts" in booking;
}
