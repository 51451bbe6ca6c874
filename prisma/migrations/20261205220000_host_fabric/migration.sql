-- AlterTable
ALTER TABLE "Host" ADD COLUMN "fabric" TEXT;
ALTER TABLE "Host" ADD COLUMN "fabricLabel" TEXT;

