import type { Tx } from "@/server/bookings/store/booking-transaction";

/** One host's share of a new booking: the host and the GPU or slice rows it takes. */
export interface NewPart {
  hostId: string;
  gpuIds: string[];
}

/** A new booking as book() writes it: who, when, what for, and its parts (one for a one-host booking). */
export interface NewBooking {
  userId: string;
  teamId: string | null;
  purpose: string;
  startsAt: Date;
  endsAt: Date;
  createdAt: Date;
  parts: NewPart[];
}

/**
 * Writes a new booking, inside the booking's transaction once every check
 * passed: one Reservation row per part with its units' ranges. A booking of
 * several parts is tied by the node-0 part's id (`groupId`), each part with
 * its rank and the node count; a one-host booking is a plain row, as every
 * reader expects. Returns the part ids in rank order; the first is the
 * booking's id.
 */
export async function insertBooking(tx: Tx, booking: NewBooking): Promise<string[]> {
  const { parts, ...common } = booking;
  const acrossNodes = parts.length > 1;
  const ids: string[] = [];
  for (const [rank, part] of parts.entries()) {
    const created = await tx.reservation.create({
      data: {
        ...common,
        hostId: part.hostId,
        status: "booked",
        ...(acrossNodes ? { groupId: ids[0] ?? null, nodeRank: rank, nodeCount: parts.length } : {}),
        gpus: { create: part.gpuIds.map((gpuId) => ({ gpuId, startsAt: booking.startsAt, endsAt: booking.endsAt })) },
      },
      select: { id: true },
    });
    ids.push(created.id);
  }
  // The node-0 part names the booking: its own group id is known only once it is written.
  if (acrossNodes) await tx.reservation.update({ where: { id: ids[0] }, data: { groupId: ids[0] } });
  return ids;
}
