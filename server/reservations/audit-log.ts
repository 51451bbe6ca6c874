/** The audit log moved to server/audit/; this path stays for code written against it. */
export { listAudit, recordAudit, writeAudit, type AuditRecord } from "@/server/audit/audit-log";
