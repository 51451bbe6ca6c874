-- CreateTable
CREATE TABLE "GpuMinuteBlockSetAside" (
    "id" TEXT NOT NULL,
    "gpuUuid" TEXT NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "data" BYTEA NOT NULL,
    "reason" TEXT NOT NULL,
    "setAsideAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GpuMinuteBlockSetAside_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "GpuMinuteBlockSetAside_gpuUuid_hour_idx" ON "GpuMinuteBlockSetAside"("gpuUuid", "hour");

