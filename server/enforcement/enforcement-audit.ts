import { recordAudit } from "@/server/audit/audit-log";

/** Audit actions of enforcement (entity: the host). */
export type EnforcementAuditAction =
  | "host_setting.update"
  | "enforcement.requested"
  /** Not requested: the process ran before its GPU was booked (server/enforcement/enforcement-plan.ts). */
  | "enforcement.spared"
  | "enforcement.sigterm"
  | "enforcement.sigkill"
  | "enforcement.exited"
  | "enforcement.gone"
  | "enforcement.refused";

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
