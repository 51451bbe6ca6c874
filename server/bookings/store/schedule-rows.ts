import type { Prisma, PrismaClient } from "@prisma/client";
import { db } from "@/server/core/db";
import { personSelect } from "@/server/core/people";

/** A booking on the live feed and the schedule (server/bookings/views/bookings-query.ts shapes it). */
export const scheduleSelect = {
  id: true,
  hostId: true,
  startsAt: true,
  endsAt: true,
  purpose: true,
  status: true,
  teamId: true,
  groupId: true,
  nodeRank: true,
  host: { select: { name: true } },
  user: { select: personSelect },
  gpus: { select: { gpu: { select: { uuid: true, index: true, name: true, parentUuid: true, migDeviceIndex: true } } } },
} satisfies Prisma.ReservationSelect;

export type ScheduleRow = Prisma.ReservationGetPayload<{ select: typeof scheduleSelect }>;

/** Every booking that holds GPUs now or will, soonest first, with when its booker was warned it is idle. */
export async function readLiveBookingRows(client: PrismaClient, now: Date) {
  return client.reservation.findMany({
    where: { status: "booked", endsAt: { gt: now } },
    orderBy: [{ startsAt: "asc" }, { id: "asc" }],
    select: { ...scheduleSelect, idleWarnedAt: true },
  });
}

/** Bookings that hold GPUs at some instant of [from, to), whatever became of them later, by start. */
export async function readScheduleRows(from: Date, to: Date): Promise<ScheduleRow[]> {
  return db().reservation.findMany({
    where: { startsAt: { lt: to }, endsAt: { gt: from } },
    orderBy: [{ startsAt: "asc" }, { id: "asc" }],
    select: scheduleSelect,
  });
}

/** A booking as a calendar event names it. */
export const calendarSelect = {
  id: true,
  startsAt: true,
  endsAt: true,
  purpose: true,
  status: true,
  groupId: true,
  nodeRank: true,
  host: { select: { name: true } },
  user: { select: { username: true, name: true } },
  gpus: { select: { gpu: { select: { index: true, migDeviceIndex: true, migProfile: true, name: true } } } },
} satisfies Prisma.ReservationSelect;

export type CalendarRow = Prisma.ReservationGetPayload<{ select: typeof calendarSelect }>;

/** A person's (`userId`) or a host's (`hostId`) bookings that end after `since`, by start, at most `take`: a calendar feed. */
export async function readCalendarRows(of: { userId: string } | { hostId: string }, since: Date, take: number): Promise<CalendarRow[]> {
  return db().reservation.findMany({ where: { ...of, endsAt: { gt: since } }, orderBy: { startsAt: "asc" }, take, select: calendarSelect });
}
