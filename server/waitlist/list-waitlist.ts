import type { UnbookedWork, WaitlistStatus, WaitlistView } from "@/lib/waitlist-schema";
import { writeAudit } from "@/server/audit/audit-log";
import { db } from "@/server/db";
import { AppError } from "@/server/errors";
import { type Actor, canManageReservation } from "@/server/reservations/actor";
import { busyRanges } from "@/server/reservations/occupancy";
import { liveGpuSource } from "@/server/reservations/live-source";
import { estimateStarts } from "@/server/waitlist/estimate-starts";
import { findUnbookedWork, unbookedWorkFor } from "@/server/waitlist/unbooked-work";
import { orderByFairShare } from "@/server/waitlist/fair-share";

const SELECT = {
  id: true,
  userId: true,
  hostName: true,
  gpuCount: true,
  durationMinutes: true,
  purpose: true,
  status: true,
  reservationId: true,
  createdAt: true,
  grantedAt: true,
  expiresAt: true,
  teamId: true,
} as const;

type Row = { id: string; userId: string; hostName: string | null; gpuCount: number; durationMinutes: number; purpose: string; status: string; reservationId: string | null; createdAt: Date; grantedAt: Date | null; expiresAt: Date | null; teamId: string | null };

/** Where a waiting request stands in the fair-share order, and for which team. */
interface Standing {
  reason: string;
  teamName: string | null;
}

interface Estimate {
  startMs: number | null;
  waitsForUnbookedWork: UnbookedWork | null;
}

function view(row: Row, holder: Holder, position: number | null, estimate: Estimate = { startMs: null, waitsForUnbookedWork: null }, standing: Standing | null = null): WaitlistView {
  const waiting = row.status === "waiting";
  return {
    id: row.id,
    status: row.status as WaitlistStatus,
    holder: { id: row.userId, username: holder.username, name: holder.name },
    host: row.hostName,
    count: row.gpuCount,
    durationMinutes: row.durationMinutes,
    purpose: row.purpose,
    createdAt: row.createdAt.toISOString(),
    position,
    estimatedStartAt: waiting && estimate.startMs !== null ? new Date(estimate.startMs).toISOString() : null,
    waitsForUnbookedWork: waiting ? estimate.waitsForUnbookedWork : null,
    reservationId: row.reservationId,
    grantedAt: row.grantedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    team: standing?.teamName ?? null,
    orderReason: waiting ? (standing?.reason ?? null) : null,
  };
}

interface Holder {
  username: string;
  name: string;
}

/** Each asker's username and display name: the queue names people as every other page does. */
async function holders(ids: string[]): Promise<Map<string, Holder>> {
  const users = await db().user.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, username: true, name: true } });
  return new Map(users.map((user) => [user.id, { username: user.username ?? user.id, name: user.name }]));
}

/** How far ahead estimates look: beyond a week, "no estimate" says more than a date would. */
const ESTIMATE_HORIZON_MS = 7 * 24 * 3600_000;

async function waitingRows(): Promise<Row[]> {
  return db().waitlistEntry.findMany({ where: { status: "waiting" }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: SELECT });
}

/**
 * Each waiting request's estimated start, from the bookings now in the
 * database. GPUs in use without a booking count as taken for good: nobody
 * knows when that work ends, and an estimate of "now" that slides forward
 * with the clock would mislead. A request those GPUs hold back says so.
 */
async function estimatesOf(rows: Row[], nowMs: number): Promise<Map<string, Estimate>> {
  if (rows.length === 0) return new Map();
  const hosts = await db().host.findMany({ select: { name: true, gpus: { select: { id: true, uuid: true, index: true } } } });
  const gpuIds = hosts.flatMap((host) => host.gpus.map((gpu) => gpu.id));
  const busy = await busyRanges(db(), gpuIds, new Date(nowMs), new Date(nowMs + 2 * ESTIMATE_HORIZON_MS));
  const unbooked = findUnbookedWork(hosts, busy, liveGpuSource(), nowMs);
  const entries = rows.map((row) => ({ id: row.id, hostName: row.hostName, count: row.gpuCount, durationMinutes: row.durationMinutes }));
  const estimateHosts = hosts.map((host) => ({ name: host.name, gpuIds: host.gpus.map((gpu) => gpu.id) }));
  const byBookings = estimateStarts(entries, estimateHosts, busy, nowMs, ESTIMATE_HORIZON_MS);
  const untilUnbookedEnds = busy.concat(unbooked.map((gpu) => ({ gpuId: gpu.gpuId, startMs: nowMs, endMs: Number.MAX_SAFE_INTEGER })));
  const held = unbooked.length > 0 ? estimateStarts(entries, estimateHosts, untilUnbookedEnds, nowMs, ESTIMATE_HORIZON_MS) : byBookings;
  const estimates = new Map<string, Estimate>();
  for (const row of rows) {
    const plain = byBookings.get(row.id) ?? null;
    const startMs = held.get(row.id) ?? null;
    const heldBack = plain !== null && (startMs === null || startMs > plain);
    estimates.set(row.id, { startMs, waitsForUnbookedWork: heldBack ? unbookedWorkFor(row.hostName, unbooked) : null });
  }
  return estimates;
}

/** The queue, in order of service (fair share): everyone's waiting requests with their estimated starts and why they stand there, so that a team sees who waits for what. */
export async function listWaitlist(now = new Date()): Promise<WaitlistView[]> {
  const ranked = await orderByFairShare(db(), await waitingRows(), now.getTime());
  const rows = ranked.map((entry) => entry.row);
  const [people, estimates] = await Promise.all([holders(rows.map((row) => row.userId)), estimatesOf(rows, now.getTime())]);
  return ranked.map((entry, at) => view(entry.row, people.get(entry.row.userId) ?? { username: entry.row.userId, name: "" }, at + 1, estimates.get(entry.row.id), entry));
}

/** Recently granted requests stay in "mine" this long, so that someone who was away still learns of the grant. */
const RECENT_GRANTS_MS = 24 * 3600_000;

/** The asker's waiting requests (place and estimate) and those granted in the last day. */
export async function listMyWaitlist(actor: Actor, now = new Date()): Promise<WaitlistView[]> {
  const queue = await listWaitlist(now);
  const granted = await db().waitlistEntry.findMany({
    where: { userId: actor.id, status: "granted", grantedAt: { gte: new Date(now.getTime() - RECENT_GRANTS_MS) } },
    orderBy: { grantedAt: "desc" },
    select: SELECT,
  });
  return [...queue.filter((entry) => entry.holder.id === actor.id), ...granted.map((row) => view(row, actor, null))];
}

/** One request of the asker's (any, for an admin), with its place in the queue while it waits. */
export async function getWaitlistEntry(actor: Actor, id: string): Promise<WaitlistView> {
  const row = await db().waitlistEntry.findUnique({ where: { id }, select: SELECT });
  if (!row || !canManageReservation(actor, row)) throw new AppError("not_found", "No such waiting request");
  if (row.status === "waiting") {
    const queued = (await listWaitlist()).find((entry) => entry.id === id);
    if (queued) return queued;
  }
  const people = await holders([row.userId]);
  return view(row, people.get(row.userId) ?? { username: row.userId, name: "" }, null);
}

/**
 * Withdraws a waiting request; one already granted stays a reservation
 * (release that instead). Audited, with whose request it was: an admin's
 * removal of someone else's is on the record as theirs.
 */
export async function leaveWaitlist(actor: Actor, id: string): Promise<WaitlistView> {
  const row = await db().waitlistEntry.findUnique({ where: { id }, select: { userId: true } });
  if (!row || !canManageReservation(actor, row)) throw new AppError("not_found", "No such waiting request");
  await db().$transaction(async (tx) => {
    const left = await tx.waitlistEntry.updateMany({ where: { id, status: "waiting" }, data: { status: "left" } });
    if (left.count === 0) return;
    await writeAudit(tx, { actorId: actor.id, action: "waitlist.leave", entityType: "waitlist", entityId: id, before: { status: "waiting", userId: row.userId }, after: { status: "left", byOwner: actor.id === row.userId } });
  });
  return getWaitlistEntry(actor, id);
}
