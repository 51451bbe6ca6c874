import { requireAdmin } from "@/server/auth/guard";
import { listActiveHolders } from "@/server/history/booked-holders";
import { currentHistory } from "@/server/history/history-service";
import { renderMetrics } from "@/server/metrics/render-metrics";
import { runtime } from "@/server/runtime";

/**
 * Who may scrape: admins (session or `Authorization: Bearer` personal
 * token of an admin), or anyone when GPUDESK_METRICS_PUBLIC=1.
 */
export async function authorizeMetrics(request: Request, publicMetrics: boolean): Promise<void> {
  if (!publicMetrics) await requireAdmin(request);
}

/**
 * Open alerts by kind. There is no alert store yet (the reconciler's
 * issue); every kind reads 0 until it exists and is counted here.
 */
async function countOpenAlerts(): Promise<Record<string, number>> {
  return {};
}

/** One scrape: the live fleet from memory, the bookings from the database. */
export async function collectMetrics(now = new Date()): Promise<{ contentType: string; body: string }> {
  const { fleet, ingest } = runtime();
  const holders = await listActiveHolders(now);
  return renderMetrics({
    fleet: fleet.snapshot(),
    holders,
    activeReservations: new Set([...holders.values()].map((holder) => holder.reservationId)).size,
    openAlerts: await countOpenAlerts(),
    ingest: ingest.counters,
    history: currentHistory()?.stats(),
    nowMs: now.getTime(),
  });
}
