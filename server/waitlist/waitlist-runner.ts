import { log } from "@/server/core/log";
import { onBookingsChanged } from "@/server/core/booking-events";
import type { LiveGpuSource } from "@/server/reservations/create-reservation";
import { announceGrants } from "@/server/waitlist/grant-notices";
import { grantWaiting } from "@/server/waitlist/grant-waiting";

// Bookings also end by expiry, which nothing announces: look again this often.
const INTERVAL_MS = 10_000;

/**
 * Serves the waitlist in the custom server: whenever bookings change and
 * every few seconds. Runs one pass at a time; a change during a pass asks
 * for one more.
 */
export function startWaitlistRunner(options: { fleet?: LiveGpuSource; publicUrl?: string } = {}): { stop: () => void } {
  let running = false;
  let again = false;
  let stopped = false;
  const pass = async () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const grants = await grantWaiting({ fleet: options.fleet });
        for (const grant of grants) log.info(`waitlist: granted ${grant.entryId} as reservation ${grant.reservationId}`);
        await announceGrants(grants, { publicUrl: options.publicUrl });
      } while (again && !stopped);
    } catch (error) {
      log.error(`waitlist: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      running = false;
    }
  };
  const unsubscribe = onBookingsChanged(() => void pass());
  const timer = setInterval(() => void pass(), INTERVAL_MS);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      unsubscribe();
    },
  };
}
