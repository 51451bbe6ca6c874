-- AlterTable
ALTER TABLE "Host" ADD COLUMN     "fabric" TEXT,
ADD COLUMN     "fabricLabel" TEXT;

