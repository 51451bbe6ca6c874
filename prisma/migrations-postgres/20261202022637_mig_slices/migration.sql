-- AlterTable
ALTER TABLE "Gpu" ADD COLUMN     "migComputeInstanceId" INTEGER,
ADD COLUMN     "migDeviceIndex" INTEGER,
ADD COLUMN     "migGpuInstanceId" INTEGER,
ADD COLUMN     "migProfile" TEXT,
ADD COLUMN     "parentUuid" TEXT;

