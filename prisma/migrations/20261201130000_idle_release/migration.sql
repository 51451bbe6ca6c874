-- Idle release (issue 23): new columns are added in place (no table is redefined).
ALTER TABLE "Reservation" ADD COLUMN "idleClockAt" DATETIME;
ALTER TABLE "Reservation" ADD COLUMN "idleKeepsUsed" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "Reservation" ADD COLUMN "idleWarnedAt" DATETIME;
ALTER TABLE "Reservation" ADD COLUMN "releasedBecause" TEXT;
ALTER TABLE "Policy" ADD COLUMN "idleReleaseAfterMinutes" INTEGER;
ALTER TABLE "Policy" ADD COLUMN "idleWarningMinutes" INTEGER NOT NULL DEFAULT 30;
ALTER TABLE "Policy" ADD COLUMN "idleBelowPct" INTEGER NOT NULL DEFAULT 5;
ALTER TABLE "Policy" ADD COLUMN "idleKeepsPerBooking" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "Policy" ADD COLUMN "idleReportOnly" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Policy" ADD COLUMN "idleOffAfterUpgrade" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "IdleExemption" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "reason" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "IdleRelease" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "reservationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "hostId" TEXT NOT NULL,
    "gpuCount" INTEGER NOT NULL,
    "idleSince" DATETIME NOT NULL,
    "at" DATETIME NOT NULL,
    "scheduledEndAt" DATETIME NOT NULL,
    "reportOnly" BOOLEAN NOT NULL DEFAULT false
);


-- An installation that already has people upgrades with idle release off (and a notice on
-- /admin/policies); a new one (no people yet when this runs) gets the default, on.
INSERT INTO "Policy" ("id", "updatedAt") SELECT 'default', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
  WHERE EXISTS (SELECT 1 FROM "user") AND NOT EXISTS (SELECT 1 FROM "Policy" WHERE "id" = 'default');
UPDATE "Policy" SET "idleReleaseAfterMinutes" = 0, "idleOffAfterUpgrade" = true WHERE "idleReleaseAfterMinutes" IS NULL;

-- CreateIndex
CREATE UNIQUE INDEX "IdleExemption_kind_subjectId_key" ON "IdleExemption"("kind", "subjectId");

-- CreateIndex
CREATE INDEX "IdleRelease_at_idx" ON "IdleRelease"("at");

-- CreateIndex
CREATE UNIQUE INDEX "IdleRelease_reservationId_idleSince_key" ON "IdleRelease"("reservationId", "idleSince");
