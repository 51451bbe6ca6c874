import type { Prisma, PrismaClient } from "@prisma/client";
import { db } from "@/server/core/db";
import { personSelect } from "@/server/core/people";

type Client = PrismaClient | Prisma.TransactionClient;

/** A booking as the bookings API shows it (server/bookings/views/booking-view.ts makes the view). */
export const bookingSelect = {
  id: true,
  userId: true,
  startsAt: true,
  endsAt: true,
  purpose: true,
  status: true,
  cancelReason: true,
  releasedBecause: true,
  createdAt: true,
  groupId: true,
  nodeCount: true,
  slurmState: true,
  slurmMessage: true,
  user: { select: personSelect },
  cancelledBy: { select: personSelect },
  host: { select: { id: true, name: true } },
  gpus: { select: { gpu: { select: { uuid: true, index: true, name: true, migDeviceIndex: true, migProfile: true } } } },
} satisfies Prisma.ReservationSelect;

export type BookingRow = Prisma.ReservationGetPayload<{ select: typeof bookingSelect }>;

/** One booking as the API shows it, or null. */
export async function readBookingRow(client: Client, id: string): Promise<BookingRow | null> {
  return client.reservation.findUnique({ where: { id }, select: bookingSelect });
}

/** Whose bookings a list holds: one person's, or everyone's (null). */
type Owner = string | null;

function ownerWhere(userId: Owner): Prisma.ReservationWhereInput {
  return userId === null ? {} : { userId };
}

/** Past bookings: ended, released or cancelled; with `search`, those whose purpose or host name holds it. */
function pastWhere(userId: Owner, now: Date, search: string | undefined): Prisma.ReservationWhereInput {
  const text = search?.trim();
  return {
    ...ownerWhere(userId),
    NOT: { status: "booked", endsAt: { gt: now } },
    ...(text ? { OR: [{ purpose: { contains: text } }, { host: { name: { contains: text } } }] } : {}),
  };
}

/** How many past bookings a person (or everyone: null) has, with the list's filter. */
export async function countPastBookings(userId: Owner, now: Date, search: string | undefined): Promise<number> {
  return db().reservation.count({ where: pastWhere(userId, now, search) });
}

/** A person's (or everyone's) bookings that hold GPUs now or later, by start. */
export async function readCurrentBookingRows(userId: Owner, now: Date): Promise<BookingRow[]> {
  return db().reservation.findMany({ where: { ...ownerWhere(userId), status: "booked", endsAt: { gt: now } }, orderBy: [{ startsAt: "asc" }], select: bookingSelect });
}

/** A page of a person's (or everyone's) past bookings, most recent first. */
export async function readPastBookingRows(userId: Owner, now: Date, page: { search?: string; take: number; skip: number }): Promise<BookingRow[]> {
  return db().reservation.findMany({
    where: pastWhere(userId, now, page.search),
    orderBy: [{ endsAt: "desc" }, { startsAt: "desc" }, { id: "desc" }],
    take: page.take,
    skip: page.skip,
    select: bookingSelect,
  });
}

/** A booking's host and units, and the booking across nodes it is a part of: what the audit entry of a change names. */
export async function readBookingUnits(client: Client, id: string) {
  return client.reservation.findUniqueOrThrow({
    where: { id },
    select: { groupId: true, host: { select: { name: true } }, gpus: { select: { gpu: { select: { index: true, migDeviceIndex: true, migProfile: true } } } } },
  });
}

/** Bookings still to come or running on this unit (by UUID), soonest first, with their bookers and hosts. */
export async function readOpenBookingsOfUnit(client: Client, uuid: string, now: Date) {
  return client.reservation.findMany({
    where: { status: "booked", endsAt: { gt: now }, gpus: { some: { gpu: { uuid } } } },
    orderBy: [{ startsAt: "asc" }],
    select: { id: true, userId: true, startsAt: true, endsAt: true, purpose: true, host: { select: { name: true } } },
  });
}

/** Of these bookings, the ones a viewer may see: their own (`userId`), or all of them (null). */
export async function readVisibleBookingIds(ids: string[], userId: Owner): Promise<string[]> {
  return (await db().reservation.findMany({ where: { id: { in: ids }, ...ownerWhere(userId) }, select: { id: true } })).map((row) => row.id);
}

/** When a booking was made; null when there is no such booking. */
export async function readBookingCreatedAt(id: string): Promise<Date | null> {
  return (await db().reservation.findUnique({ where: { id }, select: { createdAt: true } }))?.createdAt ?? null;
}
