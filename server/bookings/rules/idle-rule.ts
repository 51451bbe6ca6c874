/**
 * The one rule for "idle" (issue 23), a pure function of stored readings and
 * the clock: the idle-booking alert, the warning, the release and every page
 * that says "idle since" ask it.
 *
 * A minute of a booking is
 * - *busy* when any reading of any of its GPUs reached the threshold: the
 *   clock starts again after it;
 * - *idle* when every GPU of the booking has readings in it and all of them
 *   are below the threshold (memory held at 0 % is idle: the classic waste);
 * - *paused* otherwise (a host offline, an agent down, a GPU silent):
 *   neither idle nor busy, it neither counts nor breaks the window.
 * The clock starts at the booking's start, or at its last keep or extension.
 *
 * A MIG slice has no utilization (nvidia-smi reports none per MIG device),
 * so a minute of a slice is busy when a compute process ran on it or its
 * memory rose above the idle memory threshold (`sliceMemoryIdleMiB`), and
 * idle otherwise. A process that holds a slice and computes nothing keeps
 * it busy by this rule (docs/using.md, "Idle release").
 */

import { unseenMemoryThresholdMiB } from "@/lib/domain/gpu-availability";

export const MINUTE_MS = 60_000;

/** One stored minute of one GPU: the highest utilization read in it (null: no utilization read). */
export interface MinuteReading {
  gpuUuid: string;
  minuteMs: number;
  utilMax: number | null;
  /** Whether a compute process ran on it in the minute (what decides for a slice). */
  process?: boolean;
  /** The most memory used in the minute, and the unit's total, in MiB (what decides for a slice). */
  memUsedMax?: number | null;
  memTotal?: number | null;
}

/** The memory a MIG slice may hold and still be idle: what a unit holds with nothing of anyone's on it (lib/domain/gpu-availability.ts). */
export function sliceMemoryIdleMiB(totalMiB: number | null | undefined): number {
  return unseenMemoryThresholdMiB(totalMiB ?? null);
}

/** A slice's minute is busy with a process on it or memory above the idle threshold; null: nothing read. */
export function sliceMinuteBusy(reading: Pick<MinuteReading, "process" | "memUsedMax" | "memTotal">): boolean | null {
  if (reading.process) return true;
  if (reading.memUsedMax === null || reading.memUsedMax === undefined) return null;
  return reading.memUsedMax > sliceMemoryIdleMiB(reading.memTotal);
}

export interface IdleRuleInput {
  gpuUuids: readonly string[];
  /** Those of `gpuUuids` that are MIG slices: judged by process and memory, not utilization. */
  sliceUuids?: ReadonlySet<string>;
  /** When the clock started: the booking's start, or its last keep or extension. */
  clockFromMs: number;
  /** Readings at or after the clock's start, in any order. */
  readings: readonly MinuteReading[];
  belowPct: number;
  nowMs: number;
  /** A GPU of the booking busy in the readings not stored yet (the live state): nothing is idle then. */
  busyNow?: boolean;
}

export interface IdleAssessment {
  /** Start of the first idle minute of the current idle run; null when not idle now. */
  idleSinceMs: number | null;
  /** Idle minutes counted since then (paused minutes left out). */
  idleMinutes: number;
  /** End of the last minute that counted (idle or busy), or null when none did yet. */
  lastCountedMs: number | null;
}

/** The first whole minute at or after `ms`: readings of a minute begun before the clock started do not count. */
export function firstWholeMinute(ms: number): number {
  return Math.ceil(ms / MINUTE_MS) * MINUTE_MS;
}

export function assessIdle(input: IdleRuleInput): IdleAssessment {
  const none: IdleAssessment = { idleSinceMs: null, idleMinutes: 0, lastCountedMs: null };
  if (input.busyNow || input.gpuUuids.length === 0) return none;
  const wanted = new Set(input.gpuUuids);
  const fromMs = firstWholeMinute(input.clockFromMs);
  // Per minute: which GPUs read something, and whether any reading was busy.
  const minutes = new Map<number, { seen: Set<string>; busy: boolean }>();
  for (const reading of input.readings) {
    if (!wanted.has(reading.gpuUuid) || reading.minuteMs < fromMs || reading.minuteMs > input.nowMs) continue;
    const busy = input.sliceUuids?.has(reading.gpuUuid) ? sliceMinuteBusy(reading) : reading.utilMax === null ? null : reading.utilMax >= input.belowPct;
    if (busy === null) continue;
    let minute = minutes.get(reading.minuteMs);
    if (!minute) minutes.set(reading.minuteMs, (minute = { seen: new Set(), busy: false }));
    minute.seen.add(reading.gpuUuid);
    if (busy) minute.busy = true;
  }
  // The minute under way counts once it is over; a busy reading in it breaks the run at once.
  for (const [minuteMs, minute] of minutes) if (minuteMs + MINUTE_MS > input.nowMs && !minute.busy) minutes.delete(minuteMs);
  let result = none;
  for (const minuteMs of [...minutes.keys()].sort((a, b) => a - b)) {
    const minute = minutes.get(minuteMs)!;
    if (minute.busy) {
      result = { idleSinceMs: null, idleMinutes: 0, lastCountedMs: minuteMs + MINUTE_MS };
    } else if (minute.seen.size === wanted.size) {
      result = { idleSinceMs: result.idleSinceMs ?? minuteMs, idleMinutes: result.idleMinutes + 1, lastCountedMs: minuteMs + MINUTE_MS };
    }
  }
  return result;
}

/** The idle policy as the phases need it (server/bookings/rules/policy.ts holds the values). */
export interface IdlePhasePolicy {
  /** 0: release is off (the alert still asks how long a booking has been idle). */
  releaseAfterMinutes: number;
  warningMinutes: number;
}

export type IdlePhase = "none" | "idle" | "warning" | "due";

/**
 * Where a booking stands: "idle" (counting, no warning yet), "warning"
 * (within `warningMinutes` of the release), "due" (release now). The
 * release time assumes the readings go on: a pause moves it later.
 */
export function idlePhase(assessment: IdleAssessment, policy: IdlePhasePolicy, nowMs: number): { phase: IdlePhase; releaseAtMs: number | null } {
  if (assessment.idleSinceMs === null || assessment.lastCountedMs === null) return { phase: "none", releaseAtMs: null };
  if (policy.releaseAfterMinutes <= 0) return { phase: "idle", releaseAtMs: null };
  const left = policy.releaseAfterMinutes - assessment.idleMinutes;
  const releaseAtMs = assessment.lastCountedMs + Math.max(0, left) * MINUTE_MS;
  if (left <= 0) return { phase: "due", releaseAtMs: Math.min(releaseAtMs, nowMs) };
  return { phase: left <= policy.warningMinutes ? "warning" : "idle", releaseAtMs };
}
