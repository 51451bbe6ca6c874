import type { KnownAuditAction } from "@/lib/domain/audit";
import { recordAudit } from "@/server/access/audit-log";

/** Audit actions of enforcement (entity: the host); lib/domain/audit.ts names them. */
export type EnforcementAuditAction = Extract<KnownAuditAction, "host_setting.update" | `enforcement.${string}`>;

/** One line in the audit log about a host: who (null: gpudesk itself), what, and the details. */
export async function recordHostAudit(entry: {
  hostId: string;
  action: EnforcementAuditAction;
  actorId?: string | null;
  before?: unknown;
  after?: unknown;
  at?: Date;
}): Promise<void> {
  await recordAudit({
    at: entry.at,
    actorId: entry.actorId ?? null,
    action: entry.action,
    entityType: "host",
    entityId: entry.hostId,
    before: entry.before,
    after: entry.after,
  });
}
