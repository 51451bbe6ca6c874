-- AlterTable
ALTER TABLE "Gpu" ADD COLUMN "migComputeInstanceId" INTEGER;
ALTER TABLE "Gpu" ADD COLUMN "migDeviceIndex" INTEGER;
ALTER TABLE "Gpu" ADD COLUMN "migGpuInstanceId" INTEGER;
ALTER TABLE "Gpu" ADD COLUMN "migProfile" TEXT;
ALTER TABLE "Gpu" ADD COLUMN "parentUuid" TEXT;

