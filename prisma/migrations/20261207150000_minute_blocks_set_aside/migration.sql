-- Minute blocks that could not be read, kept for an admin (server/minutes/minute-store.ts): issue 48.
-- CreateTable
CREATE TABLE "GpuMinuteBlockSetAside" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "gpuUuid" TEXT NOT NULL,
    "hour" DATETIME NOT NULL,
    "data" BLOB NOT NULL,
    "reason" TEXT NOT NULL,
    "setAsideAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "GpuMinuteBlockSetAside_gpuUuid_hour_idx" ON "GpuMinuteBlockSetAside"("gpuUuid", "hour");

