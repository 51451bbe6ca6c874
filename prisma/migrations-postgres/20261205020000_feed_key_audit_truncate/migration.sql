-- AlterTable
ALTER TABLE "user" ADD COLUMN     "calendarFeedKey" TEXT NOT NULL DEFAULT '';


-- The audit log is append-only against TRUNCATE too (a statement-level event the row triggers never see).
CREATE TRIGGER "AuditLog_no_truncate" BEFORE TRUNCATE ON "AuditLog"
FOR EACH STATEMENT EXECUTE FUNCTION "AuditLog_append_only"();
