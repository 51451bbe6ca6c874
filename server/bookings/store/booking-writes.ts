import type { Prisma, PrismaClient } from "@prisma/client";

type Client = PrismaClient | Prisma.TransactionClient;
type Tx = Prisma.TransactionClient;

/**
 * What the booking commands (end, change, keep) read of a booking's first
 * part inside their transaction: its times and state, its purpose (the
 * audit's snapshot), its booker and its idle clock.
 */
export async function readPartInTransaction(tx: Tx, id: string) {
  return tx.reservation.findUniqueOrThrow({
    where: { id },
    select: { startsAt: true, endsAt: true, status: true, purpose: true, userId: true, idleKeepsUsed: true, idleClockAt: true },
  });
}

/** A booking whose end moves, as changeBookingEnd checks it before its transaction: its booker, host and team. */
export async function readBookingToChange(client: Client, id: string) {
  return client.reservation.findUnique({
    where: { id },
    select: { userId: true, hostId: true, endsAt: true, teamId: true, host: { select: { name: true } }, user: { select: { username: true, name: true } } },
  });
}

/** How a booking's parts end: released or cancelled (with the reason and who), or released by idle release. */
export type PartsEnding =
  | { status: "released"; releasedBecause?: "idle" }
  | { status: "cancelled"; cancelReason: string; cancelledById: string | null };

/** Ends these parts at `endsAt`, their units' ranges with them, so the time frees up for others at once. */
export async function endParts(tx: Tx, ids: string[], endsAt: Date, ending: PartsEnding): Promise<void> {
  await tx.reservation.updateMany({ where: { id: { in: ids } }, data: { ...ending, endsAt } });
  await tx.reservationGpu.updateMany({ where: { reservationId: { in: ids } }, data: { endsAt } });
}

/** Moves these parts' end (and their units' ranges) to `endsAt`; an extension of an active booking starts its idle clock again. */
export async function moveEndOfParts(tx: Tx, ids: string[], endsAt: Date, idleClockFrom: Date | null): Promise<void> {
  const idleClock = idleClockFrom ? { idleClockAt: idleClockFrom, idleWarnedAt: null } : {};
  await tx.reservation.updateMany({ where: { id: { in: ids } }, data: { endsAt, ...idleClock } });
  await tx.reservationGpu.updateMany({ where: { reservationId: { in: ids } }, data: { endsAt } });
}

/** Moves a booking's start (and its units' ranges): the demo's staged idle bookings and tests' backdating. */
export async function moveStartOfBooking(tx: Tx, id: string, startsAt: Date): Promise<void> {
  await tx.reservation.update({ where: { id }, data: { startsAt } });
  await tx.reservationGpu.updateMany({ where: { reservationId: id }, data: { startsAt } });
}

/** A node of a booking across nodes as replacePart reads it, inside its transaction: times, host, rank and units with their ranges. */
export async function readPartToMove(tx: Tx, partId: string) {
  return tx.reservation.findUniqueOrThrow({
    where: { id: partId },
    select: {
      startsAt: true,
      endsAt: true,
      status: true,
      hostId: true,
      purpose: true,
      nodeRank: true,
      nodeCount: true,
      host: { select: { name: true } },
      gpus: { select: { gpuId: true, startsAt: true, endsAt: true, gpu: { select: { index: true, name: true } } } },
    },
  });
}

/** The part now holds `hostId`; its idle clock starts again there. */
export async function movePartToHost(tx: Tx, partId: string, hostId: string, now: Date): Promise<void> {
  await tx.reservation.update({ where: { id: partId }, data: { hostId, idleClockAt: now, idleWarnedAt: null } });
}

/** A booking of its own for what a moved node held on its old host until the move (replacePart's keepHeldTime). Returns its id. */
export async function createKeptBooking(
  tx: Tx,
  data: { userId: string; hostId: string; teamId: string | null; purpose: string; startsAt: Date; endsAt: Date },
): Promise<string> {
  return (await tx.reservation.create({ data, select: { id: true } })).id;
}

/** The demo's bookings not over yet (booked for a demo person or on a simulated host), as endDemoBookings ends them. */
export async function readDemoBookingsToEnd(tx: Tx, demo: { peopleIds: readonly string[]; hostIds: readonly string[] }, now: Date) {
  return tx.reservation.findMany({
    where: { status: "booked", endsAt: { gt: now }, OR: [{ userId: { in: [...demo.peopleIds] } }, { hostId: { in: [...demo.hostIds] } }] },
    select: { id: true, startsAt: true, endsAt: true, status: true, purpose: true },
  });
}
