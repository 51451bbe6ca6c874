import { requireAdmin } from "@/server/auth/guard";
import { db } from "@/server/core/db";
import { renderMetrics } from "@/server/metrics/render-metrics";
import { listActiveBookings } from "@/server/bookings/store/active-bookings";
import { runtime } from "@/server/runtime/runtime";

/**
 * Who may scrape: admins (session or `Authorization: Bearer` personal
 * token of an admin), or anyone when GPUDESK_METRICS_PUBLIC=1.
 */
export async function authorizeMetrics(request: Request, publicMetrics: boolean): Promise<void> {
  if (!publicMetrics) await requireAdmin(request);
}

/** Open alerts by kind, from the reconciler's table (kinds with none are exported as 0 by the renderer). */
async function countOpenAlerts(): Promise<Record<string, number>> {
  const groups = await db().alert.groupBy({ by: ["kind"], where: { closedAt: null }, _count: { _all: true } });
  return Object.fromEntries(groups.map((group) => [group.kind, group._count._all]));
}

/** One scrape: the live fleet from memory, the bookings from the database. */
export async function collectMetrics(now = new Date()): Promise<{ contentType: string; body: string }> {
  const { fleet, ingest, history } = runtime();
  const bookings = await listActiveBookings(now);
  return renderMetrics({
    fleet: fleet.current(),
    bookings,
    activeBookings: new Set([...bookings.values()].map((booking) => booking.reservationId)).size,
    openAlerts: await countOpenAlerts(),
    ingest: ingest.counters,
    history: history?.stats(),
    nowMs: now.getTime(),
  });
}
