import type { IdleHoldingProcess, IdleNotice } from "@/lib/domain/idle-release";
import type { LiveGpu } from "@/lib/live/live";
import { storedUnit, unitsPhrase } from "@/lib/domain/gpu-availability";
import { db } from "@/server/core/db";
import { readIdleExemptions, type IdleStanding } from "@/server/bookings/rules/idle-state";
import { notifyIdle } from "@/server/idle-release/notify-idle";
import { sliceMinuteBusy } from "@/server/bookings/rules/idle-rule";
import { releaseIdleBooking } from "@/server/bookings/commands/release-idle-booking";
import { bookingIdleStandings } from "@/server/bookings/rules/whole-booking";
import { acrossNodesPhrase, hostList, multiNodeLabel, shapeOf } from "@/lib/domain/multi-node";
import { log } from "@/server/core/log";
import { wholeBookingsOf } from "@/server/bookings/store/whole-bookings";
import { readRunningBookingsToJudge } from "@/server/bookings/store/idle-columns";
import { warnIdleBooking } from "@/server/bookings/commands/warn-idle-booking";
import { periodicJob } from "@/server/core/jobs";
import { readIdlePolicy } from "@/server/bookings/rules/policy";

/** Idle decisions need stored minutes, not every second: look this often (and after each rollup flush, when told). */
export const IDLE_CHECK_EVERY_MS = 30_000;

export interface IdleRunnerOptions {
  /** The live GPUs (readings not stored yet, and the processes a released booking leaves running). */
  liveGpus: () => readonly LiveGpu[];
  /** The idle-booking alert's hold, in minutes: standings are worked out for it even with release off. */
  alertHoldMinutes: number;
  publicUrl?: string;
  now?: () => number;
  everyMs?: number;
}

/** The processes still on a booking's GPUs: releasing does not stop them, and the booker is told so. */
export function holdingProcesses(gpus: readonly LiveGpu[], uuids: readonly string[]): IdleHoldingProcess[] {
  const wanted = new Set(uuids);
  return gpus
    .filter((gpu) => wanted.has(gpu.uuid))
    .flatMap((gpu) => gpu.processes.filter((process) => process.gpuUuid === gpu.uuid).map((process) => ({ pid: process.pid, command: process.command ?? process.name, usedMemoryMiB: process.usedMemoryMiB, gpuIndex: gpu.index })));
}

/** The reading not stored yet says busy: utilization at the threshold on a GPU; a process, or memory above the idle threshold, on a slice. */
export function busyInLiveReading(gpu: LiveGpu | undefined, slice: boolean, belowPct: number): boolean {
  if (!gpu) return false;
  if (!slice) return (gpu.utilizationGpuPct ?? 0) >= belowPct;
  const process = gpu.processes.some((entry) => entry.gpuUuid === gpu.uuid);
  return sliceMinuteBusy({ process, memUsedMax: gpu.memoryUsedMiB, memTotal: gpu.memoryTotalMiB }) === true;
}

/**
 * One pass of idle release over the active bookings, from what is stored:
 * warn once per idle window (the claim on `idleWarnedAt` is durable, so a
 * restart or a new leader does not warn twice), release what is due. Returns
 * every active booking's standing (the idle-booking alert reads them).
 */
export async function runIdlePass(options: Omit<IdleRunnerOptions, "everyMs">, nowMs: number): Promise<Map<string, IdleStanding>> {
  const now = new Date(nowMs);
  const policy = await readIdlePolicy(db());
  const exemptions = await readIdleExemptions(db());
  const bookings = await readRunningBookingsToJudge(now);
  const gpus = options.liveGpus();
  const live = new Map(gpus.map((gpu) => [gpu.uuid, gpu]));
  const busyNowOf = (booking: Pick<(typeof bookings)[number], "gpus">) => booking.gpus.some(({ gpu }) => busyInLiveReading(live.get(gpu.uuid), gpu.migDeviceIndex !== null, policy.idleBelowPct));
  // A booking across nodes is judged whole: its parts share the standing of the least idle one.
  const standings = await bookingIdleStandings(db(), bookings, policy, exemptions, nowMs, { busyNow: busyNowOf, minimumMinutes: options.alertHoldMinutes });
  const whole = wholeBookingsOf(bookings);
  for (const booking of bookings) {
    const standing = standings.get(booking.id) as IdleStanding;
    // The whole booking is warned and released once, through its first part.
    if (!whole.standsForBooking(booking)) continue;
    const parts = whole.partsOf(booking) ?? [booking];
    const uuids = parts.flatMap((part) => part.gpus.map((entry) => entry.gpu.uuid));
    const busyNow = parts.some(busyNowOf);
    if (standing.phase !== "warning" && standing.phase !== "due") continue;
    if (standing.idleSinceMs === null || standing.releaseAtMs === null) continue;
    const units = unitsPhrase(booking.gpus.map((entry) => storedUnit(entry.gpu)));
    // A booking across nodes is told once, named with every node ("2 × 8 H100 on h100-03 and h100-04").
    const across = parts.length > 1 ? acrossNodesPhrase(parts.map((part) => ({ host: part.host, gpus: part.gpus.map((entry) => entry.gpu) }))) : null;
    const notice = (event: IdleNotice["event"], releaseAtMs: number): IdleNotice => ({
      event,
      reservationId: booking.id,
      userId: booking.userId,
      hostName: hostList(parts.map((part) => part.host.name)),
      gpuIndices: booking.gpus.map((entry) => entry.gpu.index).sort((a, b) => a - b),
      units: across ? multiNodeLabel(shapeOf(parts.map((part) => ({ gpus: part.gpus.map((entry) => entry.gpu) })))) : units,
      booked: across ?? `${units} on ${booking.host.name}`,
      purpose: booking.purpose,
      idleSince: new Date(standing.idleSinceMs!).toISOString(),
      releaseAt: new Date(releaseAtMs).toISOString(),
      keepsLeft: standing.keepsLeft,
      reportOnly: policy.idleReportOnly,
      holding: holdingProcesses(gpus, uuids),
    });
    if (standing.warnedAtMs === null) {
      // The claim, a command: one instance, one pass, one warning per window (a warning of an earlier idle run is
      // replaced), announced once by its transaction (the live bookings carry the warning: the feed reads them again).
      if (await warnIdleBooking(booking.id, new Date(standing.idleSinceMs), { now })) {
        await notifyIdle(notice("reservation.idle_warning", standing.releaseAtMs), { publicUrl: options.publicUrl, now });
      }
    }
    if (standing.phase === "due") {
      const outcome = await releaseIdleBooking(booking.id, { now, busyNow });
      if (outcome.kind === "released") {
        log.info(`idle release: released ${booking.id} (${booking.host.name}, idle since ${new Date(standing.idleSinceMs).toISOString()})`);
        for (const part of parts) standings.delete(part.id);
        await notifyIdle(notice("reservation.idle_released", nowMs), { publicUrl: options.publicUrl, now });
      } else if (outcome.kind === "reported") {
        log.info(`idle release (report only): would have released ${booking.id} (${booking.host.name})`);
      }
    }
  }
  return standings;
}

/**
 * The leader's idle release: a pass every `everyMs` and on `poke()` (usage
 * minutes stored), one at a time (server/core/jobs.ts). The standings of the
 * last pass are kept for the idle-booking alert; they are derived again from
 * the database at every pass, so nothing is lost with the process.
 */
export function startIdleRunner(options: IdleRunnerOptions) {
  const now = options.now ?? Date.now;
  let standings: ReadonlyMap<string, IdleStanding> = new Map();
  const job = periodicJob({
    name: "idle release",
    everyMs: options.everyMs ?? IDLE_CHECK_EVERY_MS,
    run: async () => {
      standings = await runIdlePass(options, now());
    },
  });
  return {
    /** The leader job: passes run only while this instance leads. */
    leaderJob: {
      name: "idle release",
      start: () => {
        const stop = job.start();
        return async () => {
          await stop();
          standings = new Map();
        };
      },
    },
    /** A pass soon (new minutes were stored); nothing while another instance leads. */
    poke: () => job.poke(),
    standings: (): ReadonlyMap<string, IdleStanding> => standings,
  };
}
