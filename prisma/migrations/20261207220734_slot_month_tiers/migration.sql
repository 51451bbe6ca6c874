-- The usage reports' slot tier (utilization per GPU-slot of 6 and 24 hours) and month tier, and indexes that answer their reads alone (server/history/day-tier.ts): issue 52.

-- DropIndex
DROP INDEX "GpuDay_day_idx";

-- CreateTable
CREATE TABLE "GpuSlot" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "start" DATETIME NOT NULL,
    "hours" INTEGER NOT NULL,
    "day" DATETIME NOT NULL,
    "gpuUuid" TEXT NOT NULL,
    "hostId" TEXT NOT NULL,
    "utilMinutes" REAL NOT NULL,
    "utilCounted" INTEGER NOT NULL
);

-- CreateTable
CREATE TABLE "GpuMonth" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "month" DATETIME NOT NULL,
    "gpuUuid" TEXT NOT NULL,
    "hostId" TEXT NOT NULL,
    "bookedByUserId" TEXT,
    "runnerUserId" TEXT,
    "minutes" INTEGER NOT NULL,
    "utilMinutes" REAL NOT NULL,
    "utilCounted" INTEGER NOT NULL,
    "busyMinutes" INTEGER NOT NULL,
    "idleMinutes" INTEGER NOT NULL,
    "simulatedHours" INTEGER NOT NULL
);

-- CreateTable
CREATE TABLE "GpuMonthSummed" (
    "month" DATETIME NOT NULL PRIMARY KEY,
    "summedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "GpuSlot_read_idx" ON "GpuSlot"("hours", "day", "start", "hostId", "gpuUuid", "utilMinutes", "utilCounted");

-- CreateIndex
CREATE INDEX "GpuMonth_read_idx" ON "GpuMonth"("month", "gpuUuid", "hostId", "bookedByUserId", "runnerUserId", "minutes", "utilMinutes", "utilCounted", "busyMinutes", "idleMinutes", "simulatedHours");

-- CreateIndex
CREATE INDEX "GpuDay_read_idx" ON "GpuDay"("day", "gpuUuid", "hostId", "bookedByUserId", "runnerUserId", "minutes", "utilMinutes", "utilCounted", "busyMinutes", "idleMinutes", "simulatedHours");


-- The days summed before have no slots: the retention job's backfill sums them all again.
DELETE FROM "GpuDaySummed";
DELETE FROM "GpuDay";
