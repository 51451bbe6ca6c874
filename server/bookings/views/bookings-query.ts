import type { PrismaClient } from "@prisma/client";
import type { LiveBooking } from "@/lib/live/live";
import type { BookingStatus } from "@/lib/domain/booking-state";
import type { BookableHost } from "@/lib/domain/booking-types";
import { db } from "@/server/core/db";
import { currentUnits, unitOrder, unitSelect } from "@/server/bookings/placement/host-units";
import { toPerson } from "@/server/core/people";
import { idleWarningsOf } from "@/server/bookings/views/idle-views";
import { teamNames } from "@/server/bookings/rules/booking-team";
import { partLabel, shapeOf } from "@/lib/domain/multi-node";
import { readLiveBookingRows, readScheduleRows, type ScheduleRow } from "@/server/bookings/store/schedule-rows";

/** A booking on the schedule: the live shape plus how it ended, for the past part of the timeline. */
export interface ScheduleBooking extends LiveBooking {
  status: BookingStatus;
}

type BookingRow = ScheduleRow;

/**
 * Each part's "2 × 4 H100, node 1 of 2", by booking id. The parts of a
 * booking share their times, so every part is among the rows of any window
 * that holds one of them.
 */
function partLabels(rows: BookingRow[]): Map<string, string> {
  const groups = new Map<string, BookingRow[]>();
  for (const row of rows) if (row.groupId) groups.set(row.groupId, [...(groups.get(row.groupId) ?? []), row]);
  const labels = new Map<string, string>();
  for (const parts of groups.values()) {
    const ranked = [...parts].sort((a, b) => (a.nodeRank ?? 0) - (b.nodeRank ?? 0));
    const shape = shapeOf(ranked.map((part) => ({ gpus: part.gpus.map((entry) => entry.gpu) })));
    for (const part of ranked) labels.set(part.id, partLabel(shape, part.nodeRank ?? 0));
  }
  return labels;
}

function toBooking(row: BookingRow, teams: Map<string, string>, labels: Map<string, string>): ScheduleBooking {
  const label = labels.get(row.id);
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
    ...(row.groupId && label ? { multiNode: { id: row.groupId, partLabel: label } } : {}),
    status: row.status as BookingStatus,
  };
}

/** Every booking that holds GPUs now or will, soonest first: what the live feed sends. */
export async function listLiveBookings(now: Date, client: PrismaClient = db()): Promise<LiveBooking[]> {
  const rows = await readLiveBookingRows(client, now);
  const teams = await teamNames(client, rows.map((row) => row.teamId));
  const warnings = await idleWarningsOf(client, rows.filter((row) => row.idleWarnedAt !== null).map((row) => row.id), now.getTime());
  const labels = partLabels(rows);
  return rows.map(({ idleWarnedAt: _warned, ...row }) => {
    const { status: _status, ...live } = toBooking(row, teams, labels);
    const warning = warnings.get(row.id);
    return warning ? { ...live, idleWarning: warning } : live;
  });
}

/** Bookings that hold GPUs at some instant of [from, to), whatever became of them later. */
export async function listSchedule(from: Date, to: Date): Promise<ScheduleBooking[]> {
  const rows = await readScheduleRows(from, to);
  const teams = await teamNames(db(), rows.map((row) => row.teamId));
  const labels = partLabels(rows);
  return rows.filter((row) => row.endsAt > row.startsAt).map((row) => toBooking(row, teams, labels));
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

