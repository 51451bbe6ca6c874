import type { AlertConfig } from "@/server/alerts/alert-config";
import { AlertMonitor, type AlertPersistence } from "@/server/alerts/alert-monitor";
import { periodicJob, type JobTimers } from "@/server/core/jobs";
import { onIdleStandings } from "@/server/tick/idle-standings";
import type { IdleRun, TickConsumer } from "@/server/tick/tick-view";

export interface AlertRulesOptions {
  config: AlertConfig;
  /** The database by default. */
  persistence?: AlertPersistence;
  /** Seed the expected inventory from the database, and read it again every minute; default true. */
  readInventory?: boolean;
  /** The inventory's re-reading clock (tests). */
  timers?: JobTimers;
}

export interface AlertRulesConsumer extends TickConsumer {
  /** This term's monitor; null while another instance leads. */
  readonly monitor: AlertMonitor | null;
}

const INVENTORY_EVERY_MS = 60_000;
const NO_STANDINGS: ReadonlyMap<string, IdleRun> = new Map();

/**
 * The alert rules as a consumer of the tick (leader only): each term
 * carries on the alerts the previous leader stored, then judges every
 * tick's view and keeps the Alert table in step (server/alerts/alert-monitor.ts).
 * It keeps the idle standings idle release announces after each pass (the
 * idle-booking alert's clock, server/tick/idle-standings.ts) and leaves the
 * alerts it holds open for enforcement in the view's findings
 * (server/tick/tick-view.ts).
 */
export function alertRulesConsumer(options: AlertRulesOptions): AlertRulesConsumer {
  let monitor: AlertMonitor | null = null;
  let stopInventory: (() => Promise<void>) | null = null;
  let stopHearing: (() => void) | null = null;
  let standings = NO_STANDINGS;
  const readInventory = options.readInventory ?? true;
  return {
    name: "alerts",
    runs: "leader",
    get monitor() {
      return monitor;
    },
    async start(nowMs) {
      standings = NO_STANDINGS;
      stopHearing = onIdleStandings((latest) => void (standings = latest));
      const term = new AlertMonitor({ config: options.config, persistence: options.persistence, idleStandings: () => standings });
      if (readInventory) {
        await term.inventory.load(nowMs);
        stopInventory = periodicJob({
          name: "expected inventory",
          everyMs: INVENTORY_EVERY_MS,
          firstAfterMs: INVENTORY_EVERY_MS,
          timers: options.timers,
          run: () => term.inventory.load(Date.now()),
        }).start();
      }
      await term.restore(nowMs);
      monitor = term;
    },
    consume(view) {
      if (!monitor) return;
      monitor.observe(view, view.gpuStates, view.activeBookings, view.nowMs, view.bookings);
      view.findings.openAlerts = monitor.openAlerts();
    },
    async stop() {
      const term = monitor;
      monitor = null;
      stopHearing?.();
      stopHearing = null;
      const inventory = stopInventory;
      stopInventory = null;
      await inventory?.();
      await term?.idle();
    },
  };
}
