import type { UpdateMe } from "@/lib/domain/account-schema";
import { writeAudit } from "@/server/access/audit-log";
import { db } from "@/server/core/db";

/** The zone a person chose for their pages; null: the browser's. */
export async function readTimeZone(userId: string): Promise<string | null> {
  const row = await db().user.findUnique({ where: { id: userId }, select: { timeZone: true } });
  return row?.timeZone ?? null;
}

/** Sets a person's own zone (Settings → Account), audited like their other account changes. */
export async function updateTimeZone(userId: string, change: UpdateMe): Promise<{ timeZone: string | null }> {
  return db().$transaction(async (tx) => {
    const before = await tx.user.findUnique({ where: { id: userId }, select: { timeZone: true } });
    const after = await tx.user.update({ where: { id: userId }, data: { timeZone: change.timeZone }, select: { timeZone: true } });
    if ((before?.timeZone ?? null) !== after.timeZone) {
      await writeAudit(tx, { action: "user.time_zone", entityType: "user", entityId: userId, before: { timeZone: before?.timeZone ?? null }, after: { timeZone: after.timeZone } });
    }
    return after;
  });
}
