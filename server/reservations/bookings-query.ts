import type { Prisma, PrismaClient } from "@prisma/client";
import type { LiveBooking } from "@/lib/live";
import type { ReservationStatus } from "@/lib/reservation-state";
import type { BookableHost } from "@/lib/reservation-types";
import { db } from "@/server/core/db";
import { currentUnits, unitOrder, unitSelect } from "@/server/reservations/host-units";
import { personSelect, toPerson } from "@/server/core/people";
import { idleWarningsOf } from "@/server/reservations/idle-views";
import { teamNames } from "@/server/core/booking-team";

/** A booking on the schedule: the live shape plus how it ended, for the past part of the timeline. */
export interface ScheduleBooking extends LiveBooking {
  status: ReservationStatus;
}

const bookingSelect = {
  id: true,
  hostId: true,
  startsAt: true,
  endsAt: true,
  purpose: true,
  status: true,
  teamId: true,
  host: { select: { name: true } },
  user: { select: personSelect },
  gpus: { select: { gpu: { select: { uuid: true, index: true, parentUuid: true, migDeviceIndex: true } } } },
} satisfies Prisma.ReservationSelect;

type BookingRow = Prisma.ReservationGetPayload<{ select: typeof bookingSelect }>;

function toBooking(row: BookingRow, teams: Map<string, string>): ScheduleBooking {
  return {
    reservationId: row.id,
    hostId: row.hostId,
    hostName: row.host.name,
    // A slice carries its GPU's UUID, so that every surface finds the silicon it takes (sharesSilicon); a whole GPU's shape stays as it was.
    gpus: row.gpus
      .map(({ gpu }) => gpu)
      .sort((a, b) => a.index - b.index || (a.migDeviceIndex ?? -1) - (b.migDeviceIndex ?? -1))
      .map((gpu) => ({ uuid: gpu.uuid, index: gpu.index, ...(gpu.parentUuid ? { parentUuid: gpu.parentUuid } : {}) })),
    bookedBy: toPerson(row.user),
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    purpose: row.purpose,
    // Only bookings made for a team carry one: the others' shape stays as it was.
    ...(row.teamId && teams.has(row.teamId) ? { team: teams.get(row.teamId) } : {}),
    status: row.status as ReservationStatus,
  };
}

/** Every booking that holds GPUs now or will, soonest first: what the live feed sends. */
export async function listLiveBookings(now: Date, client: PrismaClient = db()): Promise<LiveBooking[]> {
  const rows = await client.reservation.findMany({
    where: { status: "booked", endsAt: { gt: now } },
    orderBy: [{ startsAt: "asc" }, { id: "asc" }],
    select: { ...bookingSelect, idleWarnedAt: true },
  });
  const teams = await teamNames(client, rows.map((row) => row.teamId));
  const warnings = await idleWarningsOf(client, rows.filter((row) => row.idleWarnedAt !== null).map((row) => row.id), now.getTime());
  return rows.map(({ idleWarnedAt: _warned, ...row }) => {
    const { status: _status, ...live } = toBooking(row, teams);
    const warning = warnings.get(row.id);
    return warning ? { ...live, idleWarning: warning } : live;
  });
}

/** Bookings that hold GPUs at some instant of [from, to), whatever became of them later. */
export async function listSchedule(from: Date, to: Date): Promise<ScheduleBooking[]> {
  const rows = await db().reservation.findMany({
    where: { startsAt: { lt: to }, endsAt: { gt: from } },
    orderBy: [{ startsAt: "asc" }, { id: "asc" }],
    select: bookingSelect,
  });
  const teams = await teamNames(db(), rows.map((row) => row.teamId));
  return rows.filter((row) => row.endsAt > row.startsAt).map((row) => toBooking(row, teams));
}

/** Hosts that have GPUs, with their GPUs in nvidia-smi order: what the form and the schedule offer. */
export async function listBookableHosts(): Promise<BookableHost[]> {
  const hosts = await db().host.findMany({
    where: { gpus: { some: {} } },
    orderBy: { name: "asc" },
    select: {
      id: true,
      name: true,
      simulated: true,
      gpus: {
        orderBy: unitOrder,
        select: unitSelect,
      },
    },
  });
  return hosts.map((host) => ({
    ...host,
    gpus: currentUnits(host.gpus).map((unit) => ({
      uuid: unit.uuid,
      index: unit.index,
      name: unit.name,
      memoryTotalMiB: unit.memoryTotalMiB,
      ...(unit.mig ? { mig: unit.mig } : {}),
      ...(unit.parentUuid ? { parentUuid: unit.parentUuid } : {}),
      ...(unit.partitioned ? { partitioned: true as const } : {}),
    })),
  }));
}

