-- DropIndex
DROP INDEX "GpuDay_day_idx";

-- CreateTable
CREATE TABLE "GpuSlot" (
    "id" SERIAL NOT NULL,
    "start" TIMESTAMP(3) NOT NULL,
    "hours" INTEGER NOT NULL,
    "day" TIMESTAMP(3) NOT NULL,
    "gpuUuid" TEXT NOT NULL,
    "hostId" TEXT NOT NULL,
    "utilMinutes" DOUBLE PRECISION NOT NULL,
    "utilCounted" INTEGER NOT NULL,

    CONSTRAINT "GpuSlot_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GpuMonth" (
    "id" SERIAL NOT NULL,
    "month" TIMESTAMP(3) NOT NULL,
    "gpuUuid" TEXT NOT NULL,
    "hostId" TEXT NOT NULL,
    "bookedByUserId" TEXT,
    "runnerUserId" TEXT,
    "minutes" INTEGER NOT NULL,
    "utilMinutes" DOUBLE PRECISION NOT NULL,
    "utilCounted" INTEGER NOT NULL,
    "busyMinutes" INTEGER NOT NULL,
    "idleMinutes" INTEGER NOT NULL,
    "simulatedHours" INTEGER NOT NULL,

    CONSTRAINT "GpuMonth_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GpuMonthSummed" (
    "month" TIMESTAMP(3) NOT NULL,
    "summedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GpuMonthSummed_pkey" PRIMARY KEY ("month")
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
