-- A pre-summed day tier for the usage reports' long ranges (server/history/day-tier.ts): issue 52.
-- CreateTable
CREATE TABLE "GpuDay" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "day" DATETIME NOT NULL,
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
CREATE TABLE "GpuDaySummed" (
    "day" DATETIME NOT NULL PRIMARY KEY,
    "summedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "GpuDay_day_idx" ON "GpuDay"("day");

