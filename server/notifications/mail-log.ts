import { db } from "@/server/core/db";
import type { Actor } from "@/server/access/actor";
import { can } from "@/server/access/permissions";

export interface MailDeliveryView {
  id: string;
  to: string;
  event: string;
  subject: string;
  subjectId: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** The mail part of the delivery log, newest first: everyone's for an admin (unless `mine`), one's own otherwise. */
export async function listMailDeliveries(actor: Actor, query: { limit: number; mine?: boolean }): Promise<MailDeliveryView[]> {
  const everyone = can.seeAllDeliveries(actor) && !query.mine;
  const rows = await db().mailDelivery.findMany({
    where: everyone ? {} : { userId: actor.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit,
    select: { id: true, to: true, event: true, subject: true, subjectId: true, status: true, attempts: true, lastError: true, createdAt: true, deliveredAt: true },
  });
  return rows.map((row) => ({
    ...row,
    status: row.status === "delivered" || row.status === "failed" ? row.status : "pending",
    createdAt: row.createdAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
  }));
}
