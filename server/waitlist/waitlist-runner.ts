import { periodicJob, type JobTimers } from "@/server/core/jobs";
import { log } from "@/server/core/log";
import { onBookingsChanged } from "@/server/bookings/store/booking-events";
import type { LiveGpuSource } from "@/server/bookings/placement/gpu-in-use";
import { announceGrants } from "@/server/waitlist/grant-notices";
import { grantWaiting } from "@/server/waitlist/grant-waiting";
import { onUnitsFreed } from "@/server/waitlist/units-freed";

// What another instance changed (a booking, a limit) is announced only there: look again this often.
const INTERVAL_MS = 10_000;

/**
 * Serves the waitlist in the custom server: at once when bookings change
 * (made, released, limits or policy saved: announced after each commit),
 * when one ends by itself (`bookings`: the booking feed wakes at each end),
 * when a unit becomes free in the tick (work without a booking ended), and
 * every few seconds for what other instances changed: a job of
 * server/core/jobs.ts (one pass at a time; a change during a pass asks for
 * one more).
 */
export function startWaitlistRunner(
  options: { fleet?: LiveGpuSource; publicUrl?: string; bookings?: { subscribe(listener: () => void): () => void }; timers?: JobTimers } = {},
): { stop: () => Promise<void> } {
  const job = periodicJob({
    name: "waitlist",
    everyMs: INTERVAL_MS,
    timers: options.timers,
    run: async () => {
      const grants = await grantWaiting({ fleet: options.fleet });
      for (const grant of grants) log.info(`waitlist: granted ${grant.entryId} as reservation ${grant.reservationId}`);
      await announceGrants(grants, { publicUrl: options.publicUrl });
    },
  });
  const unsubscribe = onBookingsChanged(job.poke);
  const unsubscribeEnds = options.bookings?.subscribe(job.poke);
  const unsubscribeFreed = onUnitsFreed(job.poke);
  const stopJob = job.start();
  return {
    async stop() {
      unsubscribe();
      unsubscribeEnds?.();
      unsubscribeFreed();
      await stopJob();
    },
  };
}
