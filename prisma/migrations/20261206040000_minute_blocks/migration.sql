-- Minute detail packed per GPU-hour (server/minutes/minute-block.ts). The old GpuMinute table stays
-- until the leader's one-time conversion (server/history/convert-minutes.ts) has emptied it; a later
-- migration drops it.
-- CreateTable
CREATE TABLE "GpuMinuteBlock" (
    "gpuUuid" TEXT NOT NULL,
    "hour" DATETIME NOT NULL,
    "data" BLOB NOT NULL,

    PRIMARY KEY ("gpuUuid", "hour")
);

-- CreateIndex
CREATE INDEX "GpuMinuteBlock_hour_idx" ON "GpuMinuteBlock"("hour");

