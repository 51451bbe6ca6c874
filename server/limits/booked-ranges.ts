import type { Prisma, PrismaClient } from "@prisma/client";
import type { GpuRange } from "@/server/limits/gpu-hours";

type Client = Prisma.TransactionClient | PrismaClient;

/** Whose bookings: one person's, every booking made for a team, or one person's for one team. */
export type BookingOwner = { userId: string; teamId?: string } | { teamId: string };

/**
 * The GPU ranges of an owner's bookings that share time with [fromMs, toMs),
 * one per booked GPU (ReservationGpu rows carry the time; releasing moves
 * their end, so what was given back early does not count).
 */
export async function bookedRanges(client: Client, owner: BookingOwner, fromMs: number, toMs: number): Promise<GpuRange[]> {
  const rows = await client.reservationGpu.findMany({
    where: {
      reservation: { ...("userId" in owner ? { userId: owner.userId } : {}), ...(owner.teamId !== undefined ? { teamId: owner.teamId } : {}) },
      startsAt: { lt: new Date(toMs) },
      endsAt: { gt: new Date(fromMs) },
    },
    select: { startsAt: true, endsAt: true },
  });
  return rows.flatMap((row) => (row.endsAt > row.startsAt ? [{ startMs: row.startsAt.getTime(), endMs: row.endsAt.getTime(), gpus: 1 }] : []));
}

/**
 * Every booked GPU range in [fromMs, toMs), grouped by the booking's team
 * (null: bookings that name none; for the queue's fair share), by its
 * person or by its host (the usage report's booked GPU-hours); `userIds`
 * narrows to those people, `realPeopleOnly` leaves out the simulated
 * fleet's demo people (whose history the report takes from its minutes).
 */
export async function bookedRangesBy(
  client: Client,
  key: "teamId" | "userId" | "hostId",
  fromMs: number,
  toMs: number,
  userIds?: readonly string[],
  realPeopleOnly = false,
): Promise<Map<string | null, GpuRange[]>> {
  const reservation = { ...(userIds ? { userId: { in: [...userIds] } } : {}), ...(realPeopleOnly ? { user: { simulated: false } } : {}) };
  const rows = await client.reservationGpu.findMany({
    where: { startsAt: { lt: new Date(toMs) }, endsAt: { gt: new Date(fromMs) }, ...(userIds || realPeopleOnly ? { reservation } : {}) },
    select: { startsAt: true, endsAt: true, reservation: { select: { teamId: true, userId: true, hostId: true } } },
  });
  const byKey = new Map<string | null, GpuRange[]>();
  for (const row of rows) {
    if (row.endsAt <= row.startsAt) continue;
    const group = row.reservation[key];
    const list = byKey.get(group) ?? [];
    list.push({ startMs: row.startsAt.getTime(), endMs: row.endsAt.getTime(), gpus: 1 });
    byKey.set(group, list);
  }
  return byKey;
}
