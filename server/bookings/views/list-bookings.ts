import type { PrismaClient } from "@prisma/client";
import type { BookingView } from "@/lib/domain/booking-types";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import type { Actor } from "@/server/access/actor";
import { withIdleViews } from "@/server/bookings/views/idle-views";
import { withGoneSlices } from "@/server/bookings/views/gone-slices";
import { withMultiNode } from "@/server/bookings/views/multi-node-view";
import { loadChanges, toBookingView } from "@/server/bookings/views/booking-view";
import { countPastBookings, readBookingRow, readCurrentBookingRows, readPastBookingRows } from "@/server/bookings/store/booking-rows";
import { readBookingOwner } from "@/server/bookings/store/booking-parts";
import { can } from "@/server/access/permissions";

/** One booking with its changes and launch settings, by id, as `viewerId` sees it (no permission check: callers decide). */
export async function getBookingView(client: PrismaClient, id: string, nowMs: number, viewerId: string | null): Promise<BookingView> {
  const row = await readBookingRow(client, id);
  if (!row) throw new AppError("not_found", "No such reservation");
  const changes = await loadChanges(client, [id]);
  const [view] = await withIdleViews(client, await withGoneSlices(client, await withMultiNode(client, [toBookingView(row, nowMs, viewerId, changes.get(id))], viewerId)), nowMs);
  return view;
}

/** A booking for its booker or an admin; anyone else learns nothing, not even that it exists. */
export async function getBooking(actor: Actor, id: string, now = new Date()): Promise<BookingView> {
  const owner = await readBookingOwner(db(), id);
  if (!owner || !can.manageBooking(actor, owner)) throw new AppError("not_found", "No such reservation");
  return getBookingView(db(), id, now.getTime(), actor.id);
}

export interface ListQuery {
  /** Everyone's bookings (admins only). */
  all: boolean;
  /** current: scheduled and active; past: ended, released, cancelled. */
  state: "current" | "past" | "all";
  /** At most this many past bookings (current ones are never cut). */
  limit: number;
  /** Past bookings to skip first, newest first (the page's "Older"). */
  skip?: number;
  /** Past bookings whose purpose or host name holds this text. */
  search?: string;
}

/** How many past bookings the person (or everyone, for an admin) has, with the same filter as the list. */
export async function countPastBookingsFor(actor: Actor, query: Pick<ListQuery, "all" | "search">, now = new Date()): Promise<number> {
  if (query.all && !can.seeAllBookings(actor)) throw new AppError("forbidden", "Only an admin can list everyone's reservations");
  return countPastBookings(query.all ? null : actor.id, now, query.search);
}

/**
 * The person's bookings (or everyone's, for an admin): current ones by
 * start, then past ones, most recent first.
 */
export async function listBookings(actor: Actor, query: ListQuery, now = new Date()): Promise<BookingView[]> {
  if (query.all && !can.seeAllBookings(actor)) throw new AppError("forbidden", "Only an admin can list everyone's reservations");
  const owner = query.all ? null : actor.id;
  const wantCurrent = query.state !== "past";
  const wantPast = query.state !== "current";
  const [currentRows, pastRows] = await Promise.all([
    wantCurrent ? readCurrentBookingRows(owner, now) : [],
    wantPast ? readPastBookingRows(owner, now, { search: query.search, take: query.limit, skip: query.skip ?? 0 }) : [],
  ]);
  const rows = [...currentRows, ...pastRows];
  const changes = await loadChanges(db(), rows.map((row) => row.id));
  const views = await withGoneSlices(db(), await withMultiNode(db(), rows.map((row) => toBookingView(row, now.getTime(), actor.id, changes.get(row.id))), actor.id));
  return withIdleViews(db(), views, now.getTime());
}
