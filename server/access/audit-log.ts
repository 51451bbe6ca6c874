import type { Prisma } from "@prisma/client";
import { type AuditAction, type AuditEntryView, type AuditPage, type AuditQuery } from "@/lib/domain/audit";
import { currentAuditOrigin } from "@/server/core/audit-context";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { personSelect, toPerson } from "@/server/core/people";
import type { Actor } from "@/server/access/actor";
import { can } from "@/server/access/permissions";

export interface AuditRecord {
  /**
   * Who did it; null for gpudesk itself or someone not signed in (a failed
   * sign-in). Left out: the person the request was authenticated as.
   */
  actorId?: string | null;
  action: AuditAction;
  /** What it was done to: "reservation", "policy", "user", "token", "host", "display", "webhook", "alert", "team", … */
  entityType: string;
  entityId: string;
  before?: unknown;
  after?: unknown;
  /** Default: now. */
  at?: Date;
  /** Default: the origin of the request or command doing it (server/core/audit-context.ts). */
  ip?: string | null;
  via?: "web" | "cli" | "system";
}

type AuditWriter = Pick<Prisma.TransactionClient, "auditLog">;

/**
 * Appends one entry. Written inside the transaction of the change it records
 * where there is one (pass the transaction), so that neither exists without
 * the other. The log is append-only: nothing in gpudesk updates or deletes
 * an entry, and the database refuses it (docs/security.md).
 */
export async function writeAudit(tx: AuditWriter, record: AuditRecord): Promise<void> {
  const origin = currentAuditOrigin();
  await tx.auditLog.create({
    data: {
      at: record.at ?? new Date(),
      actorId: record.actorId !== undefined ? record.actorId : (origin.actorId ?? null),
      action: record.action,
      entityType: record.entityType,
      entityId: record.entityId,
      before: record.before === undefined ? null : JSON.stringify(record.before),
      after: record.after === undefined ? null : JSON.stringify(record.after),
      ip: record.ip !== undefined ? record.ip : origin.ip,
      via: record.via ?? origin.via,
    },
  });
}

/** An entry for a change that has no transaction of its own (a sign-in failure, a token made by better-auth). */
export async function recordAudit(record: AuditRecord): Promise<void> {
  await writeAudit(db(), record);
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const KIND_PREFIXES: Record<string, string[]> = { host: ["host.", "host_setting.", "enforcement."], policy: ["policy."], limit: ["limit.", "limits."] };

async function whereOf(query: Omit<AuditQuery, "limit" | "cursor">): Promise<Prisma.AuditLogWhereInput | null> {
  const and: Prisma.AuditLogWhereInput[] = [];
  if (query.entityType) and.push({ entityType: query.entityType });
  if (query.entityId) and.push({ entityId: query.entityId });
  if (query.kind) {
    const prefixes = KIND_PREFIXES[query.kind] ?? [`${query.kind}.`];
    and.push({ OR: prefixes.map((prefix) => ({ action: { startsWith: prefix } })) });
  }
  if (query.since || query.until) {
    and.push({ at: { ...(query.since ? { gte: new Date(query.since) } : {}), ...(query.until ? { lt: new Date(query.until) } : {}) } });
  }
  if (query.person) {
    const person = await db().user.findUnique({ where: { username: query.person }, select: { id: true } });
    // Failed sign-ins name the username they tried, whether or not it exists.
    const tried: Prisma.AuditLogWhereInput = { action: { startsWith: "signin." }, entityId: query.person };
    if (!person) and.push(tried);
    else and.push({ OR: [{ actorId: person.id }, { entityType: "user", entityId: person.id }, tried] });
  }
  return and.length > 0 ? { AND: and } : {};
}

/** The audit log, newest first, a page at a time, filtered by kind, person and time (admins only). */
export async function listAudit(actor: Actor, query: Partial<AuditQuery> & { limit: number }): Promise<AuditPage> {
  if (!can.administer(actor)) throw new AppError("forbidden", "Only an admin can read the audit log");
  const where = await whereOf(query);
  const rows = await db().auditLog.findMany({
    where: where ?? {},
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
      ip: true,
      via: true,
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
      entityType: row.entityType,
      entityId: row.entityId,
      before: parseJson(row.before),
      after: parseJson(row.after),
      ip: row.ip,
      via: row.via,
    })),
    nextCursor: rows.length > query.limit ? rows[query.limit].id : null,
  };
}


