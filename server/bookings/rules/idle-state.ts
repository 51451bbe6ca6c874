import type { Prisma, PrismaClient } from "@prisma/client";
import { assessIdle, firstWholeMinute, sliceMemoryIdleMiB, idlePhase, MINUTE_MS, type IdleAssessment, type IdlePhase, type MinuteReading } from "@/server/bookings/rules/idle-rule";
import type { IdlePolicyValues } from "@/server/bookings/rules/policy";
import { HOUR_MS, floorTo, type MinuteRow } from "@/server/minutes/minute-row";
import { readMinutes } from "@/server/minutes/minute-store";

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
  /** When its booker was warned of this idle run (null: not yet; a warning of an earlier run does not count). */
  warnedAtMs: number | null;
}

/**
 * The warning every booker is promised: nothing is released before its
 * warning was given and the full warning time has passed since. A policy
 * made stricter (a shorter "release after") finds bookings already past the
 * new threshold: they are warned now and released `warningMinutes` later,
 * not at once. A warning given before this idle run began (the booking was
 * used in between) does not count.
 */
export function withFullWarning(
  judged: { phase: IdlePhase; releaseAtMs: number | null },
  warnedAtMs: number | null,
  warningMinutes: number,
  nowMs: number,
): { phase: IdlePhase; releaseAtMs: number | null } {
  if ((judged.phase !== "warning" && judged.phase !== "due") || judged.releaseAtMs === null) return judged;
  const earliestMs = (warnedAtMs ?? nowMs) + warningMinutes * MINUTE_MS;
  if (judged.releaseAtMs >= earliestMs) return judged;
  return { phase: earliestMs > nowMs ? "warning" : "due", releaseAtMs: earliestMs };
}

/** When the clock started: the booking's start, or its last keep or extension. */
export function clockFrom(booking: Pick<IdleBookingRow, "startsAt" | "idleClockAt">): number {
  return Math.max(booking.startsAt.getTime(), booking.idleClockAt?.getTime() ?? 0);
}

/**
 * The stored minutes the rule needs for one booking: those after its last
 * busy minute, at most what a release needs and some more; a run longer
 * than that is idle long enough anyway. The last busy minute is found by
 * reading the booked GPUs' minute blocks from the newest hour backwards,
 * an hour and then twice as many each time, up to the first busy one: a
 * booking in use reads an hour or two, not every block since it began.
 */
export async function readIdleMinutes(client: Client, booking: IdleBookingRow, belowPct: number, neededMinutes: number, nowMs: number): Promise<MinuteReading[]> {
  const uuids = booking.gpus.map((entry) => entry.gpu.uuid);
  if (uuids.length === 0) return [];
  const fromMs = firstWholeMinute(clockFrom(booking));
  // A busy minute: utilization at the threshold on a GPU; a process, or memory above the idle threshold, on a slice.
  const sliceIdleMiB = new Map(booking.gpus.filter((entry) => entry.gpu.migDeviceIndex !== null).map(({ gpu }) => [gpu.uuid, sliceMemoryIdleMiB(gpu.memoryTotalMiB)]));
  const busy = (row: MinuteRow) => {
    const idleMiB = sliceIdleMiB.get(row.gpuUuid);
    if (idleMiB === undefined) return row.utilMax !== null && row.utilMax >= belowPct;
    return row.busy || (row.memUsedMax !== null && row.memUsedMax > idleMiB);
  };
  const read: MinuteRow[] = [];
  let lastBusyMs: number | null = null;
  let untilMs = nowMs + 1;
  for (let hours = 1; untilMs > fromMs && lastBusyMs === null; hours *= 2) {
    const pageFromMs = Math.max(fromMs, floorTo(untilMs - 1, HOUR_MS) - (hours - 1) * HOUR_MS);
    for (const row of await readMinutes(client, pageFromMs, untilMs, uuids)) {
      read.push(row);
      if (busy(row)) lastBusyMs = Math.max(lastBusyMs ?? 0, row.minute.getTime());
    }
    untilMs = pageFromMs;
  }
  const startMs = lastBusyMs ?? fromMs;
  return read
    .filter((row) => row.minute.getTime() >= startMs)
    .sort((a, b) => a.minute.getTime() - b.minute.getTime())
    .slice(0, uuids.length * (neededMinutes * 2 + 60))
    .map((row) => ({ gpuUuid: row.gpuUuid, minuteMs: row.minute.getTime(), utilMax: row.utilMax, process: row.busy, memUsedMax: row.memUsedMax, memTotal: row.memTotal }));
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
  const warnedAtMs =
    booking.idleWarnedAt && assessment.idleSinceMs !== null && booking.idleWarnedAt.getTime() >= assessment.idleSinceMs ? booking.idleWarnedAt.getTime() : null;
  const { phase, releaseAtMs } = exempt
    ? { phase: assessment.idleSinceMs === null ? ("none" as const) : ("idle" as const), releaseAtMs: null }
    : withFullWarning(
        idlePhase(assessment, { releaseAfterMinutes: policy.idleReleaseAfterMinutes, warningMinutes: policy.idleWarningMinutes }, nowMs),
        warnedAtMs,
        policy.idleWarningMinutes,
        nowMs,
      );
  return {
    warnedAtMs,
    ...assessment,
    reservationId: booking.id,
    phase,
    releaseAtMs,
    exempt,
    keepsLeft: Math.max(0, policy.idleKeepsPerBooking - booking.idleKeepsUsed),
    belowPct: policy.idleBelowPct,
  };
}
