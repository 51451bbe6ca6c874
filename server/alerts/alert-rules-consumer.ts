import type { AlertConfig } from "@/server/alerts/alert-config";
import { AlertMonitor, type AlertPersistence, type OpenAlertRef } from "@/server/alerts/alert-monitor";
import type { IdleRun } from "@/server/alerts/alert-rules";
import type { TickConsumer } from "@/server/tick/tick-view";

export interface AlertRulesOptions {
  config: AlertConfig;
  /** The database by default. */
  persistence?: AlertPersistence;
  /** Seed the expected inventory from the database, and read it again every minute; default true. */
  readInventory?: boolean;
  /** Each active booking's idle run, derived from stored minutes by idle release: the idle-booking alert's clock. */
  idleStandings?: () => ReadonlyMap<string, IdleRun>;
}

export interface AlertRulesConsumer extends TickConsumer {
  /** This term's monitor; null while another instance leads. */
  readonly monitor: AlertMonitor | null;
  /** The open alerts, by subject key (what enforcement acts on); empty while another instance leads. */
  openAlerts(): Iterable<OpenAlertRef>;
}

const INVENTORY_EVERY_MS = 60_000;

/**
 * The alert rules as a consumer of the tick (leader only): each term
 * carries on the alerts the previous leader stored, then judges every
 * tick's view and keeps the Alert table in step (server/alerts/alert-monitor.ts).
 */
export function alertRulesConsumer(options: AlertRulesOptions): AlertRulesConsumer {
  let monitor: AlertMonitor | null = null;
  let inventoryTimer: ReturnType<typeof setInterval> | null = null;
  const readInventory = options.readInventory ?? true;
  return {
    name: "alerts",
    runs: "leader",
    get monitor() {
      return monitor;
    },
    openAlerts: () => monitor?.openAlerts().values() ?? [],
    async start(nowMs) {
      const term = new AlertMonitor({ config: options.config, persistence: options.persistence, idleStandings: options.idleStandings });
      if (readInventory) {
        await term.inventory.load(nowMs);
        inventoryTimer = setInterval(() => void term.inventory.load(Date.now()), INVENTORY_EVERY_MS);
        inventoryTimer.unref();
      }
      await term.restore(nowMs);
      monitor = term;
    },
    consume(view) {
      monitor?.observe(view, view.gpuStates, view.activeBookings, view.nowMs, view.bookings);
    },
    async stop() {
      const term = monitor;
      monitor = null;
      if (inventoryTimer) clearInterval(inventoryTimer);
      inventoryTimer = null;
      await term?.idle();
    },
  };
}
