import type { Prisma, PrismaClient } from "@prisma/client";
import type { BookingIdleView } from "@/lib/domain/idle-release";
import type { BookingView } from "@/lib/domain/booking-types";
import { readIdleExemptions, type IdleStanding } from "@/server/bookings/rules/idle-state";
import { readIdleRows, readOtherPartsIdleRows } from "@/server/bookings/store/idle-columns";
import { readIdlePolicy, type IdlePolicyValues } from "@/server/bookings/rules/policy";
import { bookingIdleStandings } from "@/server/bookings/rules/whole-booking";

type Client = PrismaClient | Prisma.TransactionClient;

/**
 * The standings of these bookings as idle release judges them: a part of a
 * booking across nodes with every other part of its booking (read too when
 * not asked for), so that each node shows its booking's standing, not its own.
 */
async function judgedStandings(client: Client, ids: readonly string[], policy: IdlePolicyValues, nowMs: number): Promise<IdleStanding[]> {
  const exemptions = await readIdleExemptions(client);
  const rows = await readIdleRows(client, [...ids]);
  const groups = [...new Set(rows.flatMap((row) => (row.groupId ? [row.groupId] : [])))];
  const siblings = groups.length === 0 ? [] : await readOtherPartsIdleRows(client, groups, [...ids]);
  const standings = await bookingIdleStandings(client, [...rows, ...siblings], policy, exemptions, nowMs);
  return rows.map((row) => standings.get(row.id) as IdleStanding);
}

/**
 * Adds idle release's view to bookings of the bookings API: for an
 * active one the rule's standing from the stored minutes (the same answer
 * the leader acts on), for one idle release ended its idle run.
 */
export async function withIdleViews(client: Client, views: BookingView[], nowMs: number): Promise<BookingView[]> {
  const active = views.filter((view) => view.state === "active");
  const released = views.filter((view) => view.releasedBecause === "idle");
  if (active.length === 0 && released.length === 0) return views;
  const idle = new Map<string, BookingIdleView>();
  const policy = await readIdlePolicy(client);

  if (active.length > 0) {
    for (const standing of await judgedStandings(client, active.map((view) => view.id), policy, nowMs)) {
      if (standing.idleSinceMs === null || standing.phase === "none") continue;
      idle.set(standing.reservationId, {
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
  for (const standing of await judgedStandings(client, ids, policy, nowMs)) {
    if ((standing.phase === "warning" || standing.phase === "due") && standing.idleSinceMs !== null && standing.releaseAtMs !== null) {
      found.set(standing.reservationId, { idleSince: new Date(standing.idleSinceMs).toISOString(), releaseAt: new Date(standing.releaseAtMs).toISOString() });
    }
  }
  return found;
}
