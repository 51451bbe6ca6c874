import type { Prisma, PrismaClient } from "@prisma/client";
import type { ReservationIdleView } from "@/lib/domain/idle-release";
import type { ReservationView } from "@/lib/domain/reservation-types";
import { idleStanding, readIdleExemptions } from "@/server/bookings/rules/idle-state";
import { readIdleRows } from "@/server/bookings/store/idle-columns";
import { readIdlePolicy } from "@/server/bookings/rules/policy";

type Client = PrismaClient | Prisma.TransactionClient;

/**
 * Adds idle release's view to bookings of the reservations API: for an
 * active one the rule's standing from the stored minutes (the same answer
 * the leader acts on), for one idle release ended its idle run.
 */
export async function withIdleViews(client: Client, views: ReservationView[], nowMs: number): Promise<ReservationView[]> {
  const active = views.filter((view) => view.state === "active");
  const released = views.filter((view) => view.releasedBecause === "idle");
  if (active.length === 0 && released.length === 0) return views;
  const idle = new Map<string, ReservationIdleView>();
  const policy = await readIdlePolicy(client);

  if (active.length > 0) {
    const exemptions = await readIdleExemptions(client);
    const rows = await readIdleRows(client, active.map((view) => view.id));
    for (const row of rows) {
      const standing = await idleStanding(client, row, policy, exemptions, nowMs);
      if (standing.idleSinceMs === null || standing.phase === "none") continue;
      idle.set(row.id, {
        phase: standing.phase,
        idleSince: new Date(standing.idleSinceMs).toISOString(),
        releaseAt: standing.releaseAtMs === null ? null : new Date(standing.releaseAtMs).toISOString(),
        idleMinutes: standing.idleMinutes,
        keepsLeft: standing.keepsLeft,
        exempt: standing.exempt,
        reportOnly: policy.idleReportOnly,
      });
    }
  }
  if (released.length > 0) {
    const records = await client.idleRelease.findMany({
      where: { reservationId: { in: released.map((view) => view.id) }, reportOnly: false },
      select: { reservationId: true, idleSince: true, at: true },
    });
    for (const record of records) {
      idle.set(record.reservationId, {
        phase: "released",
        idleSince: record.idleSince.toISOString(),
        releaseAt: record.at.toISOString(),
        idleMinutes: Math.round((record.at.getTime() - record.idleSince.getTime()) / 60_000),
        keepsLeft: 0,
        exempt: false,
        reportOnly: false,
      });
    }
  }
  return views.map((view) => (idle.has(view.id) ? { ...view, idle: idle.get(view.id)! } : view));
}

/** For the live bookings: the warned ones' idle run and coming release, while the warning stands. */
export async function idleWarningsOf(client: Client, ids: string[], nowMs: number): Promise<Map<string, { idleSince: string; releaseAt: string }>> {
  const found = new Map<string, { idleSince: string; releaseAt: string }>();
  if (ids.length === 0) return found;
  const policy = await readIdlePolicy(client);
  const exemptions = await readIdleExemptions(client);
  const rows = await readIdleRows(client, ids);
  for (const row of rows) {
    const standing = await idleStanding(client, row, policy, exemptions, nowMs);
    if ((standing.phase === "warning" || standing.phase === "due") && standing.idleSinceMs !== null && standing.releaseAtMs !== null) {
      found.set(row.id, { idleSince: new Date(standing.idleSinceMs).toISOString(), releaseAt: new Date(standing.releaseAtMs).toISOString() });
    }
  }
  return found;
}
