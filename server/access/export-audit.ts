import { auditQuerySchema, type AuditEntryView } from "@/lib/domain/audit";
import { listAudit } from "@/server/access/audit-log";
import type { Actor } from "@/server/access/actor";

/** The server's command line reads the whole log: whoever runs it holds the database already. */
const SERVER_OPERATOR: Actor = { id: "server-operator", username: "(server)", name: "server operator", role: "admin", unixLogin: null };

/**
 * Every entry matching the filters, oldest first (`gpudesk audit --json`),
 * read a page at a time so that a long log never sits in one query.
 */
export async function exportAudit(filters: { since?: string; until?: string; kind?: string; person?: string }): Promise<AuditEntryView[]> {
  const query = auditQuerySchema.parse({ ...filters, limit: 1000 });
  const entries: AuditEntryView[] = [];
  let cursor: string | undefined;
  do {
    const page = await listAudit(SERVER_OPERATOR, { ...query, cursor });
    entries.push(...page.entries);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return entries.reverse();
}
