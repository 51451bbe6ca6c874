import { Prisma, type PrismaClient } from "@prisma/client";

type Client = PrismaClient | Prisma.TransactionClient;
type Tx = Prisma.TransactionClient;

/**
 * A booking's units (the ReservationGpu table: one row per unit a part
 * holds, with the range it holds it over): every read of them outside the
 * writers of a booking (insert-booking.ts, booking-writes.ts) is one named
 * function here, so that the table has one home (scripts/import-graph.ts,
 * OWNED_TABLES). A released or cancelled booking's units end where it
 * ended, so a range with its end at or before its start holds nothing.
 */

/** What a unit's share of its GPU is computed from (lib/domain/gpu-share.ts). */
const shareSelect = { migProfile: true, name: true } as const;

/** The units these parts hold (a change of the booking checks them again). */
export async function readUnitIdsOfParts(client: Client, partIds: string[]): Promise<{ gpuId: string }[]> {
  return client.reservationGpu.findMany({ where: { reservationId: { in: partIds } }, select: { gpuId: true } });
}

/** Every booked range of these units that shares time with [from, to): the wear a GPU's recent bookings put on it. */
export async function readRangesOfUnits(client: Client, gpuIds: string[], from: Date, to: Date) {
  return client.reservationGpu.findMany({ where: { gpuId: { in: gpuIds }, startsAt: { lt: to }, endsAt: { gt: from } }, select: { gpuId: true, startsAt: true, endsAt: true } });
}

/**
 * Every booked range that shares time with [from, to) of the bookings
 * `bookings` picks (all when absent), with its unit's share of a GPU and
 * whose booking it is: the limits' and the queue's GPU-hours and GPUs at once.
 */
export async function readBookedUnitRanges(client: Client, from: Date, to: Date, bookings?: Prisma.ReservationWhereInput) {
  return client.reservationGpu.findMany({
    where: { startsAt: { lt: to }, endsAt: { gt: from }, ...(bookings ? { reservation: bookings } : {}) },
    select: { startsAt: true, endsAt: true, gpu: { select: shareSelect }, reservation: { select: { teamId: true, userId: true, hostId: true } } },
  });
}

/** Every booked range that shares time with [from, to), with its unit's UUID and its booking's id and person (who held which GPU when). */
export async function readHeldUnitRanges(client: Client, from: Date, to: Date) {
  return client.reservationGpu.findMany({
    where: { startsAt: { lt: to }, endsAt: { gt: from } },
    select: { startsAt: true, endsAt: true, gpu: { select: { uuid: true } }, reservation: { select: { id: true, userId: true } } },
  });
}

/** The units these bookings' parts hold, with their host and share of a GPU (what an idle release handed back). */
export async function readUnitSharesOfParts(client: Client, partIds: string[]) {
  return client.reservationGpu.findMany({ where: { reservationId: { in: partIds } }, select: { reservationId: true, gpu: { select: { hostId: true, ...shareSelect } } } });
}

/** Each unit of these parts with its range and UUID (a booking's use, read from its units' minutes). */
export async function readUnitSpansOfParts(client: Client, partIds: string[]) {
  return client.reservationGpu.findMany({ where: { reservationId: { in: partIds } }, select: { reservationId: true, startsAt: true, endsAt: true, gpu: { select: { uuid: true } } } });
}

/**
 * Each of these bookings' mean use from the hourly rollups of its units
 * within their ranges: per booking, the sum of utilization × samples (`u`)
 * and the samples with a utilization (`n`), both as the driver returns them.
 */
export async function readHourlyUseOfParts(client: Client, partIds: string[]) {
  return client.$queryRaw<{ id: string; u: unknown; n: unknown }[]>`
    SELECT rg."reservationId" AS id, SUM(h."utilAvg" * h."samples") AS u, SUM(CASE WHEN h."utilAvg" IS NULL THEN 0 ELSE h."samples" END) AS n
    FROM "ReservationGpu" rg
    JOIN "Gpu" g ON g."id" = rg."gpuId"
    JOIN "GpuHour" h ON h."gpuUuid" = g."uuid" AND h."hour" >= rg."startsAt" AND h."hour" < rg."endsAt"
    WHERE rg."reservationId" IN (${Prisma.join(partIds)})
    GROUP BY rg."reservationId"`;
}

/** Every unit held at `now`, with its host, its end and its booker's name (the queue's "who holds it until when"). */
export async function readUnitsHeldAt(client: Client, now: Date) {
  return client.reservationGpu.findMany({
    where: { startsAt: { lte: now }, endsAt: { gt: now } },
    select: { endsAt: true, gpu: { select: { index: true, migDeviceIndex: true, migProfile: true, host: { select: { name: true } } } }, reservation: { select: { user: { select: { name: true, username: true } } } } },
  });
}

/** A part's units from now on: `units` with the range each holds (a moved node's units on its new host, or the time it held before the move). */
export async function insertPartUnits(tx: Tx, units: { reservationId: string; gpuId: string; startsAt: Date; endsAt: Date }[]): Promise<void> {
  await tx.reservationGpu.createMany({ data: units });
}

/** Drops every unit of a part (a moved node: what it held is kept elsewhere, what it holds is inserted again). */
export async function deletePartUnits(tx: Tx, partId: string): Promise<void> {
  await tx.reservationGpu.deleteMany({ where: { reservationId: partId } });
}
