import type { PrismaClient } from "@prisma/client";
import type { BookingRequest } from "@/lib/domain/booking-schema";
import type { BookingView } from "@/lib/domain/booking-types";
import { db } from "@/server/core/db";
import type { Actor } from "@/server/access/actor";
import { book, type Booked } from "@/server/bookings/commands/book";
import { type CreateOptions, oneHostOrder } from "@/server/bookings/commands/booking-order";
import { getBookingView } from "@/server/bookings/views/list-bookings";

/**
 * Books GPUs for a person: the GPUs they named on a host, or any N GPUs on
 * one host (optionally with at least some free memory right now). A booking
 * of one part through the one pipeline (book.ts): the overlap check and the
 * insert run in one write transaction, so two requests for the same GPU and
 * time can never both succeed.
 */
export async function createBooking(actor: Actor, request: BookingRequest, options: CreateOptions = {}): Promise<BookingView> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  return bookedView(client, await book(actor, await oneHostOrder(client, request, now), options), now, actor.id);
}

/**
 * A new booking as its booker sees it: its (node-0) part's view, with why
 * gpudesk chose a one-host booking's units where it chose them (a booking
 * across nodes carries its explanation on the whole booking's view).
 */
export async function bookedView(client: PrismaClient, booked: Booked, now: Date, viewerId: string): Promise<BookingView> {
  const view = await getBookingView(client, booked.id, now.getTime(), viewerId);
  return booked.partIds.length === 1 && booked.explanation ? { ...view, explanation: booked.explanation } : view;
}
