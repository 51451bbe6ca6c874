import { onAlertChanged } from "@/server/alerts/alert-events";
import { db } from "@/server/core/db";
import { periodicJob } from "@/server/core/jobs";

/** A change announced on another instance reaches this one only through the database: counted again this often anyway. */
const RECOUNT_EVERY_MS = 30_000;
/** A burst of alert changes (a host going down opens several) makes one count. */
const SETTLE_MS = 500;

/**
 * How many alerts are open now, fleet-wide, for the wall displays' summary
 * (the display scope of server/live/display-scope.ts). Counted in the
 * database at start, after alert changes and every half minute; null
 * until the first count.
 */
export function startOpenAlertCount(): { current: () => number | null; stop: () => void } {
  let count: number | null = null;
  let settle: ReturnType<typeof setTimeout> | null = null;
  const job = periodicJob({
    name: "open alert count",
    everyMs: RECOUNT_EVERY_MS,
    run: async () => {
      count = await db().alert.count({ where: { closedAt: null } });
    },
  });
  const stopJob = job.start();
  const stopListening = onAlertChanged(() => {
    settle ??= setTimeout(() => {
      settle = null;
      job.poke();
    }, SETTLE_MS);
  });
  return {
    current: () => count,
    stop() {
      void stopJob();
      if (settle) clearTimeout(settle);
      stopListening();
    },
  };
}
