import type { WaitlistStatus, WaitlistView } from "@/lib/waitlist-schema";
import { db } from "@/server/db";
import { AppError } from "@/server/errors";
import { type Actor, canManageReservation } from "@/server/reservations/actor";

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
} as const;

type Row = { id: string; userId: string; hostName: string | null; gpuCount: number; durationMinutes: number; purpose: string; status: string; reservationId: string | null; createdAt: Date; grantedAt: Date | null; expiresAt: Date | null };

function view(row: Row, username: string, position: number | null): WaitlistView {
  return {
    id: row.id,
    status: row.status as WaitlistStatus,
    holder: { id: row.userId, username },
    host: row.hostName,
    count: row.gpuCount,
    durationMinutes: row.durationMinutes,
    purpose: row.purpose,
    createdAt: row.createdAt.toISOString(),
    position,
    reservationId: row.reservationId,
    grantedAt: row.grantedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}

async function usernames(ids: string[]): Promise<Map<string, string>> {
  const users = await db().user.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, username: true } });
  return new Map(users.map((user) => [user.id, user.username ?? user.id]));
}

/** The queue, in order of service: everyone's waiting requests, so that a team sees who waits for what. */
export async function listWaitlist(): Promise<WaitlistView[]> {
  const rows = await db().waitlistEntry.findMany({ where: { status: "waiting" }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: SELECT });
  const names = await usernames(rows.map((row) => row.userId));
  return rows.map((row, at) => view(row, names.get(row.userId) ?? row.userId, at + 1));
}

/** One request of the asker's (any, for an admin), with its place in the queue while it waits. */
export async function getWaitlistEntry(actor: Actor, id: string): Promise<WaitlistView> {
  const row = await db().waitlistEntry.findUnique({ where: { id }, select: SELECT });
  if (!row || !canManageReservation(actor, row)) throw new AppError("not_found", "No such waiting request");
  const position =
    row.status === "waiting" ? (await db().waitlistEntry.count({ where: { status: "waiting", createdAt: { lt: row.createdAt } } })) + 1 : null;
  const names = await usernames([row.userId]);
  return view(row, names.get(row.userId) ?? row.userId, position);
}

/** Withdraws a waiting request; one already granted stays a reservation (release that instead). */
export async function leaveWaitlist(actor: Actor, id: string): Promise<WaitlistView> {
  const row = await db().waitlistEntry.findUnique({ where: { id }, select: { userId: true } });
  if (!row || !canManageReservation(actor, row)) throw new AppError("not_found", "No such waiting request");
  await db().waitlistEntry.updateMany({ where: { id, status: "waiting" }, data: { status: "left" } });
  return getWaitlistEntry(actor, id);
}
