import { db } from "@/server/core/db";

/** The booking on a GPU now, and its person (bookedBy; who runs there is the tick's attribution). */
export interface ActiveBooking {
  gpuUuid: string;
  reservationId: string;
  bookedById: string;
  bookedByUsername: string;
}

/** The booking of each GPU at `now`, by GPU UUID (GPUs nobody booked are absent), read from the database. */
export async function listActiveBookings(now: Date): Promise<Map<string, ActiveBooking>> {
  const rows = await db().reservationGpu.findMany({
    where: { startsAt: { lte: now }, endsAt: { gt: now } },
    select: {
      gpu: { select: { uuid: true } },
      reservation: { select: { id: true, userId: true, user: { select: { username: true, name: true } } } },
    },
  });
  const bookings = new Map<string, ActiveBooking>();
  for (const row of rows) {
    bookings.set(row.gpu.uuid, {
      gpuUuid: row.gpu.uuid,
      reservationId: row.reservation.id,
      bookedById: row.reservation.userId,
      bookedByUsername: row.reservation.user.username ?? row.reservation.user.name,
    });
  }
  return bookings;
}
