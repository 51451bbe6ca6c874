import type { BookingConflict } from "@/lib/domain/booking-types";
import { sharesSilicon } from "@/lib/domain/gpu-availability";
import type { Tx } from "@/server/bookings/store/booking-transaction";
import { personSelect, toPerson } from "@/server/core/people";
import { slurmConnection } from "@/server/slurm/slurm-connection";

/**
 * Who holds which GPU when. A GPU is taken over [startsAt, endsAt) of each
 * of its ReservationGpu rows; releasing and cancelling move `endsAt`, so a
 * booking withdrawn before its start is an empty range and takes nothing.
 */

export interface BusyRange {
  gpuId: string;
  startMs: number;
  endMs: number;
}

function overlapping(tx: Tx, start: Date, end: Date) {
  return {
    startsAt: { lt: end },
    AND: [{ endsAt: { gt: start } }, { endsAt: { gt: tx.reservationGpu.fields.startsAt } }],
  };
}

/**
 * Silicon is booked once: the units whose bookings take these units' time,
 * each mapped to the asked units it blocks. A unit blocks itself; a whole
 * GPU blocks every slice ever stored under it and a slice blocks its GPU,
 * whatever the layout was when each booking was made (the rows stay, linked
 * by the GPU's UUID). Slices of one GPU do not block each other: a layout
 * gives each its own silicon, and a slice of a former layout is flagged as
 * gone (gone-slices.ts) rather than kept in the way.
 */
export async function sharedSilicon(tx: Tx, gpuIds: string[]): Promise<Map<string, string[]>> {
  const blocks = new Map<string, string[]>();
  const add = (blocker: string, asked: string) => {
    const list = blocks.get(blocker) ?? [];
    if (!list.includes(asked)) list.push(asked);
    blocks.set(blocker, list);
  };
  if (gpuIds.length === 0) return blocks;
  for (const id of gpuIds) add(id, id);
  const asked = await tx.gpu.findMany({ where: { id: { in: gpuIds } }, select: { id: true, uuid: true, parentUuid: true } });
  const wholes = asked.filter((gpu) => gpu.parentUuid === null);
  const slices = asked.filter((gpu) => gpu.parentUuid !== null);
  const related = await tx.gpu.findMany({
    where: { OR: [{ parentUuid: { in: wholes.map((gpu) => gpu.uuid) } }, { uuid: { in: slices.map((gpu) => gpu.parentUuid!) } }] },
    select: { id: true, uuid: true, parentUuid: true },
  });
  // The rows are read by the relation; whether they block is the one rule every surface asks (lib/domain/gpu-availability.ts).
  for (const gpu of related) for (const unit of asked) if (sharesSilicon(gpu, unit)) add(gpu.id, unit.id);
  return blocks;
}

/** Bookings of these units, or of the silicon they share (`sharedSilicon`), that share an instant with [start, end), as the person who asked will read them. */
export async function findConflicts(
  tx: Tx,
  gpuIds: string[],
  start: Date,
  end: Date,
  excludeBookingId?: string,
): Promise<BookingConflict[]> {
  const silicon = await sharedSilicon(tx, gpuIds);
  const rows = await tx.reservationGpu.findMany({
    where: {
      gpuId: { in: [...silicon.keys()] },
      ...overlapping(tx, start, end),
      ...(excludeBookingId ? { reservationId: { not: excludeBookingId } } : {}),
    },
    orderBy: [{ startsAt: "asc" }],
    select: {
      startsAt: true,
      endsAt: true,
      gpu: { select: { uuid: true, index: true, migDeviceIndex: true, migProfile: true, host: { select: { name: true } } } },
      reservation: { select: { id: true, purpose: true, user: { select: personSelect } } },
    },
  });
  const conflicts = rows
    .map((row): BookingConflict => ({
      reservationId: row.reservation.id,
      hostName: row.gpu.host.name,
      gpuIndex: row.gpu.index,
      gpuUuid: row.gpu.uuid,
      ...(row.gpu.migDeviceIndex !== null ? { slice: { ref: `${row.gpu.index}:${row.gpu.migDeviceIndex}`, profile: row.gpu.migProfile ?? "" } } : {}),
      bookedBy: toPerson(row.reservation.user),
      startsAt: row.startsAt.toISOString(),
      endsAt: row.endsAt.toISOString(),
      purpose: row.reservation.purpose,
    }))
    .sort((a, b) => a.gpuIndex - b.gpuIndex || (a.slice?.ref ?? "").localeCompare(b.slice?.ref ?? "") || a.startsAt.localeCompare(b.startsAt));
  return withFreeTimes(tx, conflicts, excludeBookingId);
}

/** Bookings read after a conflict to find when its unit is next free: back-to-back chains longer than this are cut short. */
const CHAIN_LIMIT = 200;

/**
 * Each conflict with the time its unit is next free: the booking's end, or
 * the end of the bookings that follow it without a gap (a refused person
 * asks "when can I have it?", not "when does this one booking end?").
 */
async function withFreeTimes(tx: Tx, conflicts: BookingConflict[], excludeBookingId: string | undefined): Promise<BookingConflict[]> {
  if (conflicts.length === 0) return conflicts;
  const earliestEnd = new Date(Math.min(...conflicts.map((conflict) => Date.parse(conflict.endsAt))));
  const later = await tx.reservationGpu.findMany({
    where: {
      gpu: { uuid: { in: [...new Set(conflicts.map((conflict) => conflict.gpuUuid))] } },
      startsAt: { gte: earliestEnd },
      endsAt: { gt: tx.reservationGpu.fields.startsAt },
      ...(excludeBookingId ? { reservationId: { not: excludeBookingId } } : {}),
    },
    orderBy: [{ startsAt: "asc" }],
    take: CHAIN_LIMIT,
    select: { startsAt: true, endsAt: true, gpu: { select: { uuid: true } }, reservation: { select: { user: { select: personSelect } } } },
  });
  return conflicts.map((conflict) => {
    let freeMs = Date.parse(conflict.endsAt);
    const then: BookingConflict["bookedBy"][] = [];
    for (const row of later) {
      if (row.gpu.uuid !== conflict.gpuUuid || row.startsAt.getTime() > freeMs || row.endsAt.getTime() <= freeMs) continue;
      freeMs = row.endsAt.getTime();
      const bookedBy = toPerson(row.reservation.user);
      if (bookedBy.id !== conflict.bookedBy.id && !then.some((person) => person.id === bookedBy.id)) then.push(bookedBy);
    }
    return { ...conflict, freeAt: new Date(freeMs).toISOString(), ...(then.length > 0 ? { thenHeldBy: then } : {}) };
  });
}

/**
 * Busy ranges of these units within [start, end), for finding free units and
 * the next free slot: a booking of a unit's GPU or of one of its slices
 * makes the unit busy too (`sharedSilicon`).
 */
export async function busyRanges(tx: Tx, gpuIds: string[], start: Date, end: Date): Promise<BusyRange[]> {
  const silicon = await sharedSilicon(tx, gpuIds);
  const rows = await tx.reservationGpu.findMany({
    where: { gpuId: { in: [...silicon.keys()] }, ...overlapping(tx, start, end) },
    select: { gpuId: true, startsAt: true, endsAt: true },
  });
  const booked = rows.flatMap((row) => (silicon.get(row.gpuId) ?? []).map((gpuId) => ({ gpuId, startMs: row.startsAt.getTime(), endMs: row.endsAt.getTime() })));
  return booked.concat(slurmBusyRanges(silicon, start, end));
}

/**
 * Slurm's own jobs and the reservations gpudesk did not make hold units as
 * bookings do (the connection's calendar, refreshed per pass): "any N GPUs",
 * slices and the queue's estimate place around them. Named GPUs are Slurm's
 * to refuse, inside the booking's commit (server/bookings/slurm/).
 */
function slurmBusyRanges(silicon: Map<string, string[]>, start: Date, end: Date): BusyRange[] {
  const blocks = slurmConnection()?.calendar.blocks ?? [];
  const ranges: BusyRange[] = [];
  for (const block of blocks) {
    const startMs = Date.parse(block.startsAt);
    const endMs = Date.parse(block.endsAt);
    if (startMs >= end.getTime() || endMs <= start.getTime()) continue;
    for (const gpu of block.gpus) for (const gpuId of silicon.get(gpu.id) ?? []) ranges.push({ gpuId, startMs, endMs });
  }
  return ranges;
}

/** The most GPUs this person holds at any one instant of [start, end), other than in one booking. */
export async function peakGpusHeld(
  tx: Tx,
  userId: string,
  start: Date,
  end: Date,
  excludeBookingId?: string,
): Promise<number> {
  const rows = await tx.reservationGpu.findMany({
    where: {
      reservation: { userId },
      ...overlapping(tx, start, end),
      ...(excludeBookingId ? { reservationId: { not: excludeBookingId } } : {}),
    },
    select: { startsAt: true, endsAt: true },
  });
  return peakConcurrent(
    rows.map((row) => ({ startMs: Math.max(row.startsAt.getTime(), start.getTime()), endMs: Math.min(row.endsAt.getTime(), end.getTime()) })),
  );
}

/** The largest number of half-open ranges that share one instant. */
export function peakConcurrent(ranges: { startMs: number; endMs: number }[]): number {
  const events: [number, number][] = [];
  for (const range of ranges) {
    if (range.endMs <= range.startMs) continue;
    events.push([range.startMs, 1], [range.endMs, -1]);
  }
  // An end and a start at the same instant do not meet: ends first.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let current = 0;
  let peak = 0;
  for (const [, step] of events) {
    current += step;
    peak = Math.max(peak, current);
  }
  return peak;
}

/** GPUs with no busy range touching [startMs, endMs). */
export function freeGpuIds(gpuIds: string[], busy: BusyRange[], startMs: number, endMs: number): string[] {
  const taken = new Set(busy.filter((range) => range.startMs < endMs && range.endMs > startMs).map((range) => range.gpuId));
  return gpuIds.filter((id) => !taken.has(id));
}

/**
 * The earliest start at or after `fromMs` (and at most `latestStartMs`)
 * where `need` of these GPUs are free for `durationMs`. Only the start asked
 * for and the ends of busy ranges can be that instant.
 */
export function nearestFreeStart(
  gpuIds: string[],
  need: number,
  busy: BusyRange[],
  fromMs: number,
  durationMs: number,
  latestStartMs: number,
): number | null {
  const candidates = [fromMs, ...busy.map((range) => range.endMs).filter((end) => end > fromMs)].sort((a, b) => a - b);
  for (const start of candidates) {
    if (start > latestStartMs) return null;
    if (freeGpuIds(gpuIds, busy, start, start + durationMs).length >= need) return start;
  }
  return null;
}
