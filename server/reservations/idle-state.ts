import type { Prisma, PrismaClient } from "@prisma/client";
import { assessIdle, firstWholeMinute, sliceMemoryIdleMiB, idlePhase, type IdleAssessment, type IdlePhase, type MinuteReading } from "@/server/reservations/idle-rule";
import type { IdlePolicyValues } from "@/server/reservations/policy";

type Client = PrismaClient | Prisma.TransactionClient;

/** What the idle rule needs of a booking, as stored. */
export interface IdleBookingRow {
  id: string;
  userId: string;
  hostId: string;
  startsAt: Date;
  endsAt: Date;
  idleClockAt: Date | null;
  idleKeepsUsed: number;
  idleWarnedAt: Date | null;
  gpus: { gpu: { uuid: string; migDeviceIndex: number | null; memoryTotalMiB: number | null } }[];
}

export const idleBookingSelect = {
  id: true,
  userId: true,
  hostId: true,
  startsAt: true,
  endsAt: true,
  idleClockAt: true,
  idleKeepsUsed: true,
  idleWarnedAt: true,
  gpus: { select: { gpu: { select: { uuid: true, migDeviceIndex: true, memoryTotalMiB: true } } } },
} as const satisfies Prisma.ReservationSelect;

/** A booking's idle standing at one instant: the rule's answer and the policy's phase. */
export interface IdleStanding extends IdleAssessment {
  reservationId: string;
  phase: IdlePhase;
  releaseAtMs: number | null;
  /** Exempt (its host, bookedBy or itself): never warned or released. */
  exempt: boolean;
  keepsLeft: number;
  /** The threshold the standing was judged with (the policy's). */
  belowPct: number;
}

/** When the clock started: the booking's start, or its last keep or extension. */
export function clockFrom(booking: Pick<IdleBookingRow, "startsAt" | "idleClockAt">): number {
  return Math.max(booking.startsAt.getTime(), booking.idleClockAt?.getTime() ?? 0);
}

/**
 * The stored minutes the rule needs for one booking: those after its last
 * busy minute (found with one indexed aggregate), at most what a release
 * needs and some more; a run longer than that is idle long enough anyway.
 */
export async function readIdleMinutes(client: Client, booking: IdleBookingRow, belowPct: number, neededMinutes: number, nowMs: number): Promise<MinuteReading[]> {
  const uuids = booking.gpus.map((entry) => entry.gpu.uuid);
  if (uuids.length === 0) return [];
  const from = new Date(firstWholeMinute(clockFrom(booking)));
  // A busy minute: utilization at the threshold on a GPU; a process, or memory above the idle threshold, on a slice.
  const wholes = booking.gpus.filter((entry) => entry.gpu.migDeviceIndex === null).map((entry) => entry.gpu.uuid);
  const slices = booking.gpus.filter((entry) => entry.gpu.migDeviceIndex !== null).map(({ gpu }) => ({
    gpuUuid: gpu.uuid,
    OR: [{ busy: true }, { memUsedMax: { gt: sliceMemoryIdleMiB(gpu.memoryTotalMiB) } }],
  }));
  const busy = await client.gpuMinute.aggregate({
    where: { minute: { gte: from, lte: new Date(nowMs) }, OR: [{ gpuUuid: { in: wholes }, utilMax: { gte: belowPct } }, ...slices] },
    _max: { minute: true },
  });
  const lastBusy = busy._max.minute;
  const rows = await client.gpuMinute.findMany({
    where: { gpuUuid: { in: uuids }, minute: lastBusy ? { gte: lastBusy, lte: new Date(nowMs) } : { gte: from, lte: new Date(nowMs) } },
    orderBy: { minute: "asc" },
    take: uuids.length * (neededMinutes * 2 + 60),
    select: { gpuUuid: true, minute: true, utilMax: true, busy: true, memUsedMax: true, memTotal: true },
  });
  return rows.map((row) => ({ gpuUuid: row.gpuUuid, minuteMs: row.minute.getTime(), utilMax: row.utilMax, process: row.busy, memUsedMax: row.memUsedMax, memTotal: row.memTotal }));
}

export interface IdleExemptions {
  hosts: ReadonlySet<string>;
  people: ReadonlySet<string>;
  bookings: ReadonlySet<string>;
}

export async function readIdleExemptions(client: Client): Promise<IdleExemptions> {
  const rows = await client.idleExemption.findMany({ select: { kind: true, subjectId: true } });
  const of = (kind: string) => new Set(rows.filter((row) => row.kind === kind).map((row) => row.subjectId));
  return { hosts: of("host"), people: of("person"), bookings: of("booking") };
}

export function isExempt(booking: Pick<IdleBookingRow, "id" | "userId" | "hostId">, exemptions: IdleExemptions): boolean {
  return exemptions.hosts.has(booking.hostId) || exemptions.people.has(booking.userId) || exemptions.bookings.has(booking.id);
}

/**
 * One booking's idle standing, from what is stored: the same answer on any
 * instance, before and after a restart. `minimumMinutes` widens what is
 * read for a caller that needs a longer run than the release does (the
 * alert's hold time).
 */
export async function idleStanding(
  client: Client,
  booking: IdleBookingRow,
  policy: IdlePolicyValues,
  exemptions: IdleExemptions,
  nowMs: number,
  options: { busyNow?: boolean; minimumMinutes?: number } = {},
): Promise<IdleStanding> {
  const needed = Math.max(policy.idleReleaseAfterMinutes, options.minimumMinutes ?? 0, 1);
  const readings = await readIdleMinutes(client, booking, policy.idleBelowPct, needed, nowMs);
  const assessment = assessIdle({
    gpuUuids: booking.gpus.map((entry) => entry.gpu.uuid),
    sliceUuids: new Set(booking.gpus.filter((entry) => entry.gpu.migDeviceIndex !== null).map((entry) => entry.gpu.uuid)),
    clockFromMs: clockFrom(booking),
    readings,
    belowPct: policy.idleBelowPct,
    nowMs,
    busyNow: options.busyNow,
  });
  const exempt = isExempt(booking, exemptions);
  const { phase, releaseAtMs } = exempt
    ? { phase: assessment.idleSinceMs === null ? ("none" as const) : ("idle" as const), releaseAtMs: null }
    : idlePhase(assessment, { releaseAfterMinutes: policy.idleReleaseAfterMinutes, warningMinutes: policy.idleWarningMinutes }, nowMs);
  return {
    ...assessment,
    reservationId: booking.id,
    phase,
    releaseAtMs,
    exempt,
    keepsLeft: Math.max(0, policy.idleKeepsPerBooking - booking.idleKeepsUsed),
    belowPct: policy.idleBelowPct,
  };
}
