import type { Prisma, PrismaClient } from "@prisma/client";
import { db } from "@/server/core/db";

type Client = PrismaClient | Prisma.TransactionClient;
type Tx = Prisma.TransactionClient;

/** What the idle rule needs of a booking, as stored (server/bookings/rules/idle-state.ts judges it). */
export const idleBookingSelect = {
  id: true,
  userId: true,
  hostId: true,
  startsAt: true,
  endsAt: true,
  idleClockAt: true,
  idleKeepsUsed: true,
  idleWarnedAt: true,
  // The booking across nodes a part belongs to: its parts are judged together (server/idle-release/whole-booking.ts).
  groupId: true,
  gpus: { select: { gpu: { select: { uuid: true, migDeviceIndex: true, memoryTotalMiB: true } } } },
} as const satisfies Prisma.ReservationSelect;

/** These bookings as the idle rule reads them. */
export async function readIdleRows(client: Client, ids: string[]) {
  return client.reservation.findMany({ where: { id: { in: ids } }, select: idleBookingSelect });
}

/** The other parts (not among `exceptIds`) of these bookings across nodes, as the idle rule reads them: a part is judged with its whole booking. */
export async function readOtherPartsIdleRows(client: Client, groupIds: string[], exceptIds: string[]) {
  return client.reservation.findMany({ where: { groupId: { in: groupIds }, id: { notIn: exceptIds } }, select: idleBookingSelect });
}

/** These parts as idle release reads them inside its transaction: the idle rule's columns, their state and purpose (the audit). */
export async function readPartsToRelease(tx: Tx, ids: string[]) {
  return tx.reservation.findMany({ where: { id: { in: ids } }, select: { ...idleBookingSelect, status: true, purpose: true } });
}

/**
 * Every booking running at `now`, as one pass of idle release judges it:
 * the idle rule's columns, and what its notice names (purpose, host, units,
 * the booking across nodes it is a part of).
 */
export async function readRunningBookingsToJudge(now: Date) {
  return db().reservation.findMany({
    where: { status: "booked", startsAt: { lte: now }, endsAt: { gt: now } },
    select: {
      ...idleBookingSelect,
      purpose: true,
      groupId: true,
      nodeRank: true,
      host: { select: { name: true } },
      gpus: { select: { gpu: { select: { uuid: true, index: true, name: true, migDeviceIndex: true, migProfile: true, memoryTotalMiB: true } } } },
    },
  });
}

/**
 * The durable claim on an idle warning, inside the command's transaction
 * (server/bookings/commands/warn-idle-booking.ts): marks the booking warned
 * at `now` unless it was warned in this idle run (since `idleSince`)
 * already, and, when it won, every other part of its booking across nodes.
 * True for the one instance and pass that won.
 */
export async function claimIdleWarning(tx: Tx, bookingId: string, partIds: string[], idleSince: Date, now: Date): Promise<boolean> {
  // A warning of an earlier idle run is replaced.
  const unwarned = [{ idleWarnedAt: null }, { idleWarnedAt: { lt: idleSince } }];
  const claimed = await tx.reservation.updateMany({ where: { id: bookingId, status: "booked", OR: unwarned }, data: { idleWarnedAt: now } });
  if (claimed.count === 1 && partIds.length > 1) await tx.reservation.updateMany({ where: { id: { in: partIds } }, data: { idleWarnedAt: now } });
  return claimed.count === 1;
}

/** "Keep": these parts' idle clock starts again at `now`, their warning is withdrawn, and one more keep is used. */
export async function restartIdleClock(tx: Tx, ids: string[], now: Date, keepsUsed: number): Promise<void> {
  await tx.reservation.updateMany({ where: { id: { in: ids } }, data: { idleClockAt: now, idleWarnedAt: null, idleKeepsUsed: keepsUsed } });
}

/** A booking's idle clock set to `at` (tests' backdating of a keep). */
export async function setIdleClock(tx: Tx, id: string, at: Date): Promise<void> {
  await tx.reservation.update({ where: { id }, data: { idleClockAt: at } });
}

/** A booking as backdating reads it: its booker, host, start and units. */
export async function readBookingToBackdate(id: string) {
  return db().reservation.findUniqueOrThrow({
    where: { id },
    select: { userId: true, hostId: true, startsAt: true, gpus: { select: { gpu: { select: { uuid: true } } } } },
  });
}

/** Each booking's purpose, by id (the idle exemptions' labels); unknown ids are left out. */
export async function readBookingPurposes(ids: string[]): Promise<{ id: string; purpose: string }[]> {
  return db().reservation.findMany({ where: { id: { in: ids } }, select: { id: true, purpose: true } });
}
