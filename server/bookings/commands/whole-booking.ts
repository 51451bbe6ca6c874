import type { Prisma, PrismaClient } from "@prisma/client";
import { partIdsOf, readBookingOwner, readPartHostIds } from "@/server/bookings/store/booking-parts";
import type { WriteLock } from "@/server/bookings/store/booking-transaction";

type Client = PrismaClient | Prisma.TransactionClient;

/** A booking as a command that changes it finds it: who holds it, and every part with its host. */
export interface WholeBooking {
  /** The booking's id: its node-0 part's (a one-host booking's own row). */
  id: string;
  /** The row of the id the caller named (a part of a booking across nodes, or the booking): what `can.*` checks. */
  owner: { userId: string; hostId: string; groupId: string | null; teamId: string | null };
  /** Every part's id, in rank order (one for a one-host booking). */
  partIds: string[];
  /** Every part's host: the hosts the change locks. */
  hostIds: string[];
}

/**
 * The whole booking that `id` is a part of, for a command that changes it
 * (end, change, keep, idle release): each of them acts on every part — a
 * booking across nodes ends, moves and is kept whole — because it takes the
 * parts from here instead of remembering to look for them. Null when there
 * is no such booking.
 */
export async function findWholeBooking(client: Client, id: string): Promise<WholeBooking | null> {
  const owner = await readBookingOwner(client, id);
  if (!owner) return null;
  const partIds = await partIdsOf(client, id);
  return { id: partIds[0], owner, partIds, hostIds: await readPartHostIds(client, partIds) };
}

/** The write lock of a change of the whole booking: its booker's row, every part's host, and the teams whose limits the change counts against. */
export function wholeBookingLock(booking: WholeBooking, teamIds: string[] = []): WriteLock {
  return { userId: booking.owner.userId, hostIds: booking.hostIds, teamIds };
}

/** What an audit entry of a change of the whole booking adds for a booking across nodes: its part ids. */
export function auditParts(booking: WholeBooking): { parts?: string[] } {
  return booking.partIds.length > 1 ? { parts: booking.partIds } : {};
}
