import type { Prisma } from "@prisma/client";
import type { AuditAction, AuditEntryView, AuditPage } from "@/lib/reservation-types";
import { db } from "@/server/db";
import { AppError } from "@/server/errors";
import { personSelect, toPerson } from "@/server/reservations/people";
import { type Actor, isAdminActor } from "@/server/reservations/actor";

export interface AuditRecord {
  actorId: string | null;
  action: AuditAction;
  entityType: "reservation" | "policy" | "team" | "user";
  entityId: string;
  before?: unknown;
  after?: unknown;
  at: Date;
}

/** Written inside the transaction of the change it records, so that neither exists without the other. */
export async function writeAudit(tx: Prisma.TransactionClient, record: AuditRecord): Promise<void> {
  await tx.auditLog.create({
    data: {
      at: record.at,
      actorId: record.actorId,
      action: record.action,
      entityType: record.entityType,
      entityId: record.entityId,
      before: record.before === undefined ? null : JSON.stringify(record.before),
      after: record.after === undefined ? null : JSON.stringify(record.after),
    },
  });
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface AuditQuery {
  limit: number;
  cursor?: string;
  entityType?: "reservation" | "policy";
  entityId?: string;
}

/** The audit log, newest first, a page at a time (admins only). */
export async function listAudit(actor: Actor, query: AuditQuery): Promise<AuditPage> {
  if (!isAdminActor(actor)) throw new AppError("forbidden", "Only an admin can read the audit log");
  const rows = await db().auditLog.findMany({
    where: { entityType: query.entityType, entityId: query.entityId },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: query.limit + 1,
    ...(query.cursor ? { cursor: { id: query.cursor }, skip: 0 } : {}),
    select: {
      id: true,
      at: true,
      action: true,
      entityType: true,
      entityId: true,
      before: true,
      after: true,
      actor: { select: personSelect },
    },
  });
  const page = rows.slice(0, query.limit);
  return {
    entries: page.map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      actor: row.actor ? toPerson(row.actor) : null,
      action: row.action as AuditEntryView["action"],
      entityType: row.entityType as AuditEntryView["entityType"],
      entityId: row.entityId,
      before: parseJson(row.before),
      after: parseJson(row.after),
    })),
    nextCursor: rows.length > query.limit ? rows[query.limit].id : null,
  };
}
