-- CreateTable
CREATE TABLE "GpuDay" (
    "id" SERIAL NOT NULL,
    "day" TIMESTAMP(3) NOT NULL,
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

    CONSTRAINT "GpuDay_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GpuDaySummed" (
    "day" TIMESTAMP(3) NOT NULL,
    "summedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GpuDaySummed_pkey" PRIMARY KEY ("day")
);

-- CreateIndex
CREATE INDEX "GpuDay_day_idx" ON "GpuDay"("day");

