-- AlterTable
ALTER TABLE "Reservation" ADD COLUMN     "idleClockAt" TIMESTAMP(3),
ADD COLUMN     "idleKeepsUsed" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "idleWarnedAt" TIMESTAMP(3),
ADD COLUMN     "releasedBecause" TEXT;

-- AlterTable
ALTER TABLE "Policy" ADD COLUMN     "idleBelowPct" INTEGER NOT NULL DEFAULT 5,
ADD COLUMN     "idleKeepsPerBooking" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "idleOffAfterUpgrade" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "idleReleaseAfterMinutes" INTEGER,
ADD COLUMN     "idleReportOnly" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "idleWarningMinutes" INTEGER NOT NULL DEFAULT 30;

-- CreateTable
CREATE TABLE "IdleExemption" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "reason" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "IdleExemption_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IdleRelease" (
    "id" TEXT NOT NULL,
    "reservationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "hostId" TEXT NOT NULL,
    "gpuCount" INTEGER NOT NULL,
    "idleSince" TIMESTAMP(3) NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "scheduledEndAt" TIMESTAMP(3) NOT NULL,
    "reportOnly" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "IdleRelease_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "IdleExemption_kind_subjectId_key" ON "IdleExemption"("kind", "subjectId");

-- CreateIndex
CREATE INDEX "IdleRelease_at_idx" ON "IdleRelease"("at");

-- CreateIndex
CREATE UNIQUE INDEX "IdleRelease_reservationId_idleSince_key" ON "IdleRelease"("reservationId", "idleSince");


-- An installation that already has people upgrades with idle release off (and a notice on
-- /admin/policies); a new one (no people yet when this runs) gets the default, on.
INSERT INTO "Policy" ("id", "updatedAt") SELECT 'default', CURRENT_TIMESTAMP
  WHERE EXISTS (SELECT 1 FROM "user") AND NOT EXISTS (SELECT 1 FROM "Policy" WHERE "id" = 'default');
UPDATE "Policy" SET "idleReleaseAfterMinutes" = 0, "idleOffAfterUpgrade" = true WHERE "idleReleaseAfterMinutes" IS NULL;
