-- AlterTable
ALTER TABLE "GpuMinute" ADD COLUMN "attributedUserId" TEXT;

-- AlterTable
ALTER TABLE "GpuHour" ADD COLUMN "attributedUserId" TEXT;

