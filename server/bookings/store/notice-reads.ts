import type { Prisma } from "@prisma/client";
import { db } from "@/server/core/db";

/** The hosts that hold a booking still running or to come (of these hosts only, when given). */
export async function readHostsWithOpenBookings(now: Date, hostIds?: string[]): Promise<string[]> {
  const rows = await db().reservation.findMany({
    where: { status: "booked", endsAt: { gt: now }, ...(hostIds ? { hostId: { in: hostIds } } : {}) },
    distinct: ["hostId"],
    select: { hostId: true },
  });
  return rows.map((row) => row.hostId);
}

/** Bookings still running or to come on any of these units (by UUID), soonest first, with their units: whose booker hears that a unit is gone. */
export async function readOpenBookingsOnUnits(now: Date, uuids: string[]) {
  return db().reservation.findMany({
    where: { status: "booked", endsAt: { gt: now }, gpus: { some: { gpu: { uuid: { in: uuids } } } } },
    orderBy: [{ startsAt: "asc" }],
    select: {
      id: true,
      userId: true,
      startsAt: true,
      endsAt: true,
      purpose: true,
      host: { select: { name: true } },
      gpus: { select: { gpu: { select: { uuid: true, index: true, migDeviceIndex: true, migProfile: true, parentUuid: true } } } },
    },
  });
}

/** Bookings of real people that start within (now, horizon], or run and end within it: those a reminder may be due for. */
export async function readBookingsToRemind(now: Date, horizon: Date) {
  return db().reservation.findMany({
    where: {
      status: "booked",
      OR: [{ startsAt: { gt: now, lte: horizon } }, { startsAt: { lte: now }, endsAt: { gt: now, lte: horizon } }],
      user: { simulated: false },
    },
    select: {
      id: true,
      userId: true,
      purpose: true,
      startsAt: true,
      endsAt: true,
      groupId: true,
      nodeRank: true,
      host: { select: { name: true } },
      gpus: { select: { gpu: { select: { index: true, migDeviceIndex: true, migProfile: true, name: true } } } },
    },
  });
}

/** The parts of bookings across nodes, still running or to come, on a failed host (`hostId`) or unit: whose booker hears of it. */
export async function readOpenPartsOn(on: { hostId: string } | { unitUuid: string }, now: Date) {
  const where: Prisma.ReservationWhereInput = "hostId" in on ? { hostId: on.hostId } : { gpus: { some: { gpu: { uuid: on.unitUuid } } } };
  return db().reservation.findMany({
    where: { ...where, status: "booked", endsAt: { gt: now }, groupId: { not: null } },
    select: { id: true, userId: true, groupId: true, nodeRank: true, purpose: true, host: { select: { name: true } } },
  });
}
