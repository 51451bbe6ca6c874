import type { AlertKind, AlertUpdate } from "@/lib/domain/alerts";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { LiveBooking } from "@/lib/live/live";
import { ruleTiming, type AlertConfig } from "@/server/alerts/alert-config";
import { AlertEngine, type ClosedAlert, type OpenedAlert } from "@/server/alerts/alert-engine";
import { announceAlertChanged } from "@/server/alerts/alert-events";
import { evaluateRules } from "@/server/alerts/alert-rules";
import {
  closeOpenAlert,
  insertOpenedAlert,
  loadOpenAlerts,
  toAlertView,
  toKind,
  toRestoredAlert,
  type AlertRow,
} from "@/server/alerts/alert-store";
import { ExpectedInventory } from "@/server/alerts/expected-inventory";
import type { FleetView } from "@/server/attribution/reconcile-fleet";
import { log } from "@/server/core/log";
import type { IdleRun, OpenAlertRef } from "@/server/tick/tick-view";

/** Where alerts are kept; the database by default, a fake in tests. */
export interface AlertPersistence {
  loadOpen(): Promise<AlertRow[]>;
  open(opened: OpenedAlert): Promise<AlertRow>;
  close(closed: ClosedAlert): Promise<AlertRow | null>;
  /** Tells the rest of the server (live pages, webhooks); `announceAlertChanged` by default. */
  announce(row: AlertRow, event: AlertUpdate["event"]): Promise<void>;
}

export const databasePersistence: AlertPersistence = {
  loadOpen: loadOpenAlerts,
  open: insertOpenedAlert,
  close: closeOpenAlert,
  async announce(row, event) {
    announceAlertChanged({ serverTime: new Date().toISOString(), event, alert: await toAlertView(row) });
  },
};

/** An open alert as the monitor knows it (enforcement waits on `openedAt`). */
export interface AlertMonitorOptions {
  config: AlertConfig;
  inventory?: ExpectedInventory;
  persistence?: AlertPersistence;
  /** Each active booking's idle run from stored state (server/idle-release/); none: no idle-booking alert. */
  idleStandings?: () => ReadonlyMap<string, IdleRun>;
}

/**
 * Applies the rules to each reconciled instant of the fleet and keeps the
 * Alert table in step: the judgement is synchronous (the engine, with the
 * caller's clock), the writes follow in order on one queue.
 */
export class AlertMonitor {
  readonly engine: AlertEngine;
  readonly inventory: ExpectedInventory;
  private readonly persistence: AlertPersistence;
  private readonly open = new Map<string, OpenAlertRef>();
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: AlertMonitorOptions) {
    this.engine = new AlertEngine(ruleTiming(options.config), options.config.staleMs);
    this.inventory = options.inventory ?? new ExpectedInventory();
    this.persistence = options.persistence ?? databasePersistence;
  }

  /** Carries on the alerts that were open when the server stopped. */
  async restore(nowMs: number): Promise<void> {
    const rows = await this.persistence.loadOpen();
    this.engine.restore(rows.map(toRestoredAlert), nowMs);
    for (const row of rows) this.remember(row);
  }

  observe(
    view: FleetView,
    reconciliation: Readonly<Record<string, GpuReconciliation>>,
    activeBookings: ReadonlyMap<string, LiveBooking>,
    nowMs: number,
    bookings: readonly LiveBooking[] = [],
  ): void {
    this.inventory.observe(view, nowMs);
    const { conditions, observed } = evaluateRules({
      nowMs,
      view,
      reconciliation,
      knownHosts: this.inventory.knownHosts(),
      expectedGpus: this.inventory.expectedGpus(),
      activeBookings,
      bookings,
      idleStandings: this.options.idleStandings?.() ?? new Map(),
      config: this.options.config,
      isActive: (key) => this.engine.isActive(key),
    });
    const { opened, closed } = this.engine.step(nowMs, conditions, observed);
    if (opened.length === 0 && closed.length === 0) return;
    this.enqueue(async () => {
      for (const alert of opened) {
        const row = await this.persistence.open(alert);
        this.remember(row);
        await this.persistence.announce(row, "opened");
      }
      for (const alert of closed) {
        const row = await this.persistence.close(alert);
        this.open.delete(alert.key);
        if (row) await this.persistence.announce(row, "closed");
      }
    });
  }

  /** The open alerts, by subject key. */
  openAlerts(): ReadonlyMap<string, OpenAlertRef> {
    return this.open;
  }

  /** Resolves when every write so far is done (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue;
  }

  private remember(row: AlertRow): void {
    this.open.set(row.subjectKey, {
      id: row.id,
      kind: toKind(row.kind),
      hostId: row.hostId,
      gpuUuid: row.gpuUuid,
      reservationId: row.reservationId,
      openedAt: row.openedAt.getTime(),
    });
  }

  private enqueue(work: () => Promise<void>): void {
    this.queue = this.queue.then(work).catch((error: unknown) => {
      log.error(`could not store an alert change: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}
