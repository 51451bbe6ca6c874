import type { Prisma } from "@prisma/client";
import type { BookedBooking, BookingChange, BookingChangeRecord } from "@/server/bookings/backends/booking-backend";

/**
 * A booking as its transaction left it, whole (every part of a booking
 * across nodes), for the booking backends: read through the transaction, so
 * that a backend sees the change before it commits.
 */
export async function readBookedBooking(tx: Prisma.TransactionClient, bookingId: string): Promise<BookedBooking> {
  const rows = await tx.reservation.findMany({
    where: { OR: [{ id: bookingId }, { groupId: bookingId }] },
    orderBy: [{ nodeRank: "asc" }, { id: "asc" }],
    select: BOOKED_ROW,
  });
  return toBookedBooking(bookingId, rows);
}

/**
 * The bookings that hold any of these hosts now or later (stored "booked",
 * not yet ended), whole, with whether Slurm holds them: the Slurm
 * reconciler's one read per pass.
 */
export async function readCurrentBookings(
  client: Prisma.TransactionClient,
  hostIds: string[],
  now: Date,
): Promise<(BookedBooking & { slurmState: string | null; slurmMessage: string | null })[]> {
  const rows = await client.reservation.findMany({
    where: { hostId: { in: hostIds }, status: "booked", endsAt: { gt: now } },
    orderBy: [{ nodeRank: "asc" }, { id: "asc" }],
    select: { ...BOOKED_ROW, groupId: true, slurmState: true, slurmMessage: true },
  });
  const groups = new Map<string, typeof rows>();
  for (const row of rows) {
    const id = row.groupId ?? row.id;
    groups.set(id, [...(groups.get(id) ?? []), row]);
  }
  return [...groups].map(([id, parts]) => {
    const first = parts.find((row) => row.id === id) ?? parts[0];
    return { ...toBookedBooking(id, parts), slurmState: first.slurmState, slurmMessage: first.slurmMessage };
  });
}

const BOOKED_ROW = {
  id: true,
  userId: true,
  teamId: true,
  purpose: true,
  startsAt: true,
  endsAt: true,
  status: true,
  nodeRank: true,
  host: { select: { id: true, name: true } },
  user: { select: { username: true, unixLogin: true } },
  gpus: { select: { gpu: { select: { id: true, uuid: true, index: true, migDeviceIndex: true, migProfile: true } } } },
} satisfies Prisma.ReservationSelect;

function toBookedBooking(bookingId: string, rows: Prisma.ReservationGetPayload<{ select: typeof BOOKED_ROW }>[]): BookedBooking {
  const first = rows.find((row) => row.id === bookingId) ?? rows[0];
  if (!first) throw new Error(`booking ${bookingId} is not there to hand to the booking backends`);
  return {
    id: bookingId,
    bookedById: first.userId,
    bookedByUsername: first.user.username ?? "",
    bookedByUnixLogin: first.user.unixLogin,
    teamId: first.teamId,
    purpose: first.purpose,
    startsAt: first.startsAt,
    endsAt: first.endsAt,
    status: first.status,
    parts: rows.map((row) => ({
      partId: row.id,
      hostId: row.host.id,
      hostName: row.host.name,
      nodeRank: row.nodeRank,
      units: row.gpus.map(({ gpu }) => ({ gpuId: gpu.id, uuid: gpu.uuid, index: gpu.index, migDeviceIndex: gpu.migDeviceIndex, migProfile: gpu.migProfile })).sort((a, b) => a.index - b.index || (a.migDeviceIndex ?? -1) - (b.migDeviceIndex ?? -1)),
    })),
  };
}

/** The recorded changes with their bookings read whole. */
export async function readChanges(tx: Prisma.TransactionClient, records: BookingChangeRecord[]): Promise<BookingChange[]> {
  const changes: BookingChange[] = [];
  for (const record of records) {
    const { bookingId, ...rest } = record;
    changes.push({ ...rest, booking: await readBookedBooking(tx, bookingId) } as BookingChange);
  }
  return changes;
}
