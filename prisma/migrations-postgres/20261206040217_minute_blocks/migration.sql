-- CreateTable
CREATE TABLE "GpuMinuteBlock" (
    "gpuUuid" TEXT NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "GpuMinuteBlock_pkey" PRIMARY KEY ("gpuUuid","hour")
);

-- CreateIndex
CREATE INDEX "GpuMinuteBlock_hour_idx" ON "GpuMinuteBlock"("hour");

