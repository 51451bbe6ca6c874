import type { Prisma } from "@prisma/client";
import { MISUSE_ALERT_KINDS, type AlertPage, type AlertQuery, type AlertSummary, type AlertView } from "@/lib/domain/alerts";
import { announceAlertChanged } from "@/server/alerts/alert-events";
import { alertSelect, bookedByIdOf, toAlertView, toAlertViews, toKind, userIdsOf } from "@/server/alerts/alert-store";
import type { UserPrincipal } from "@/server/access/principal";
import { writeAudit } from "@/server/access/audit-log";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { can } from "@/server/access/permissions";

type Actor = UserPrincipal["user"];

/** Admins see every alert; anyone else the alerts that involve them (their bookings, their processes). */
function canSeeAlert(actor: Actor, alert: { userIds: string }): boolean {
  return can.seeAlert(actor, userIdsOf(alert));
}

/** See lib/domain/alerts.ts: misuse alerts are acknowledged by admins only. */
function mayAcknowledge(actor: Actor, alert: { kind: string; userIds: string; reservationId: string | null }): boolean {
  return can.acknowledgeAlert(actor, { kind: toKind(alert.kind), reservationId: alert.reservationId, bookedById: bookedByIdOf(alert), involvedIds: userIdsOf(alert) });
}

/** The people involved are a JSON array of ids; an id is found by its quoted form. */
function involving(userId: string): Prisma.AlertWhereInput {
  return { userIds: { contains: JSON.stringify(userId) } };
}

function visibleTo(actor: Pick<Actor, "id" | "role">, mine: boolean): Prisma.AlertWhereInput {
  return can.seeAllAlerts(actor) && !mine ? {} : involving(actor.id);
}

/** Open alerts (or all, newest first) that the actor may see, a page at a time. */
export async function listAlerts(actor: Pick<Actor, "id" | "role">, query: AlertQuery): Promise<AlertPage> {
  const rows = await db().alert.findMany({
    where: {
      ...visibleTo(actor, query.mine),
      ...(query.state === "open" ? { closedAt: null } : {}),
      kind: query.kind,
      hostId: query.hostId,
      gpuUuid: query.gpuUuid,
      ...(query.since ? { openedAt: { gte: new Date(query.since) } } : {}),
    },
    orderBy: [{ openedAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
    ...(query.cursor ? { cursor: { id: query.cursor } } : {}),
    select: alertSelect,
  });
  const page = rows.slice(0, query.limit);
  return { alerts: await toAlertViews(page), nextCursor: rows.length > query.limit ? rows[query.limit].id : null };
}

/** The header badge: how many open alerts concern the actor, and how many of them nobody acknowledged. */
export async function summarizeAlerts(actor: Actor): Promise<AlertSummary> {
  const where: Prisma.AlertWhereInput = { ...visibleTo(actor, false), closedAt: null };
  const [open, unacknowledged] = await Promise.all([
    db().alert.count({ where }),
    db().alert.count({ where: { ...where, acknowledgedAt: null } }),
  ]);
  return { open, unacknowledged };
}

/** Open alerts the actor may see, for the /live snapshot (bounded: a badge and a list, not an archive). */
export async function listOpenAlertsFor(actor: Pick<Actor, "id" | "role">, limit = 200): Promise<AlertView[]> {
  return (await listAlerts(actor, { state: "open", mine: false, limit })).alerts;
}

/**
 * "Seen, someone is on it": an admin (or, for alerts that are not about
 * misuse, the booker) acknowledges an alert (see canAcknowledgeAlert). It stays open (the condition still holds) but
 * leaves the badge.
 */
export async function acknowledgeAlert(actor: Actor, id: string, now = new Date()): Promise<AlertView> {
  const row = await db().alert.findUnique({ where: { id }, select: alertSelect });
  if (!row || !canSeeAlert(actor, row)) throw new AppError("not_found", "No such alert");
  if (!mayAcknowledge(actor, row)) {
    const who = MISUSE_ALERT_KINDS.includes(toKind(row.kind)) ? "Only an admin" : "Only the booker of the booking or an admin";
    throw new AppError("forbidden", `${who} can acknowledge this alert`);
  }
  if (row.acknowledgedAt) return toAlertView(row);
  const updated = await db().$transaction(async (tx) => {
    const changed = await tx.alert.update({ where: { id }, data: { acknowledgedAt: now, acknowledgedById: actor.id }, select: alertSelect });
    await writeAudit(tx, { actorId: actor.id, action: "alert.acknowledge", entityType: "alert", entityId: id, before: { kind: row.kind, acknowledged: false }, after: { acknowledged: true }, at: now });
    return changed;
  });
  const view = await toAlertView(updated);
  announceAlertChanged({ serverTime: now.toISOString(), event: "acknowledged", alert: view });
  return view;
}

/** Hosts by name, for the alerts page's filter. */
export async function listHostNames(): Promise<{ id: string; name: string }[]> {
  return db().host.findMany({ orderBy: { name: "asc" }, select: { id: true, name: true } });
}
