-- AlterTable
ALTER TABLE "Host" ADD COLUMN "topology" TEXT;
