import { registerBookingBackend } from "@/server/bookings/backends/booking-backend";
import { slurmBookingBackend } from "@/server/bookings/slurm/slurm-backend";
import { reconcileSlurm } from "@/server/bookings/slurm/slurm-reconciler";
import type { LeaderJob } from "@/server/cluster/leader-jobs";
import type { Env } from "@/server/core/env";
import { periodicJob } from "@/server/core/jobs";
import { log } from "@/server/core/log";
import { SlurmVersionError } from "@/server/slurm/slurm-client";
import { SlurmConnection, setSlurmConnection } from "@/server/slurm/slurm-connection";
import { refreshSlurmCalendar } from "@/server/hosts/slurm-calendar-hosts";
import { listenForMissingSlurmReservations } from "@/server/notifications/booking-notices";

/** The reconciler's pace, and the calendar's on an instance that does not lead. */
const PASS_MS = 30_000;

/**
 * Slurm underneath, with GPUDESK_SLURM_URL: asks slurmrestd for its version
 * (a Slurm older than 25.05 stops the start with one line saying why), plugs
 * the Slurm booking backend in, and hands back the reconciler, a leader job
 * (every 30 s and at once). Slurm away at start: gpudesk starts, and bookings
 * on Slurm nodes are refused until it answers.
 */
export async function startSlurm(env: Env): Promise<{ leaderJob: LeaderJob; stop: () => void } | null> {
  if (!env.GPUDESK_SLURM_URL) return null;
  const connection = new SlurmConnection({ url: env.GPUDESK_SLURM_URL, user: env.GPUDESK_SLURM_USER, jwtKeyFile: env.GPUDESK_SLURM_JWT_KEY, token: env.GPUDESK_SLURM_TOKEN });
  try {
    await connection.refresh();
    await refreshSlurmCalendar(connection);
    const version = connection.status.version!;
    log.info(`Slurm ${version.release} at ${env.GPUDESK_SLURM_URL} (API ${version.api}): ${connection.status.nodes.length} nodes`);
  } catch (error) {
    if (error instanceof SlurmVersionError) throw error;
    log.warn(`Slurm at ${env.GPUDESK_SLURM_URL} did not answer at start (${error instanceof Error ? error.message : String(error)}): bookings on its nodes are refused until it does`);
  }
  setSlurmConnection(connection);
  const unregister = registerBookingBackend(slurmBookingBackend(connection));
  // Every instance draws Slurm on its calendar; the leader's reconciler reads the lists on its passes, and the others
  // (or the leader between passes, should one fail) read them here once they are a pass old.
  const stopCalendar = periodicJob({
    name: "slurm calendar",
    everyMs: PASS_MS,
    run: async () => {
      if (Date.now() - connection.refreshedAt < PASS_MS * 1.5) return;
      await connection.refresh();
      await refreshSlurmCalendar(connection);
    },
  }).start();
  // The leader's reconciler announces a reservation gone missing; its booker is told here.
  const stopNotices = listenForMissingSlurmReservations(env.GPUDESK_PUBLIC_URL);
  return {
    leaderJob: {
      name: "slurm reconciler",
      start: () => periodicJob({ name: "slurm reconciler", everyMs: PASS_MS, run: () => reconcileSlurm(connection).then(() => undefined) }).start(),
    },
    stop: () => {
      void stopCalendar();
      stopNotices();
      unregister();
      setSlurmConnection(null);
    },
  };
}
