import { onAlertChanged } from "@/server/alerts/alert-events";
import { db } from "@/server/core/db";
import { log } from "@/server/core/log";

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
  let stopped = false;
  const recount = () => {
    settle = null;
    db()
      .alert.count({ where: { closedAt: null } })
      .then((value) => {
        if (!stopped) count = value;
      })
      .catch((error: unknown) => log.warn(`could not count the open alerts: ${error instanceof Error ? error.message : String(error)}`));
  };
  recount();
  const timer = setInterval(recount, RECOUNT_EVERY_MS);
  timer.unref();
  const stopListening = onAlertChanged(() => {
    settle ??= setTimeout(recount, SETTLE_MS);
  });
  return {
    current: () => count,
    stop() {
      stopped = true;
      clearInterval(timer);
      if (settle) clearTimeout(settle);
      stopListening();
    },
  };
}
