import type { AlertConfig } from "@/server/alerts/alert-config";
import { AlertMonitor, type AlertPersistence } from "@/server/alerts/alert-monitor";
import { periodicJob, type JobTimers } from "@/server/core/jobs";
import type { IdleRun, TickConsumer } from "@/server/tick/tick-view";

export interface AlertRulesOptions {
  config: AlertConfig;
  /** The database by default. */
  persistence?: AlertPersistence;
  /** Seed the expected inventory from the database, and read it again every minute; default true. */
  readInventory?: boolean;
  /** The inventory's re-reading clock (tests). */
  timers?: JobTimers;
  /**
   * Each active booking's idle run from idle release's last pass: the
   * idle-booking alert's clock. Handed over where the server is composed
   * (server/main/start-tick.ts: idle release's `standings`); none by default.
   */
  idleStandings?: () => ReadonlyMap<string, IdleRun>;
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
 * It reads idle release's standings of its last pass (the idle-booking
 * alert's clock, `idleStandings`, handed over by the composition) and
 * leaves the alerts it holds open for enforcement in the view's findings
 * (server/tick/tick-view.ts).
 */
export function alertRulesConsumer(options: AlertRulesOptions): AlertRulesConsumer {
  let monitor: AlertMonitor | null = null;
  let stopInventory: (() => Promise<void>) | null = null;
  const readInventory = options.readInventory ?? true;
  return {
    name: "alerts",
    runs: "leader",
    get monitor() {
      return monitor;
    },
    async start(nowMs) {
      const term = new AlertMonitor({ config: options.config, persistence: options.persistence, idleStandings: options.idleStandings ?? (() => NO_STANDINGS) });
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
      const inventory = stopInventory;
      stopInventory = null;
      await inventory?.();
      await term?.idle();
    },
  };
}
