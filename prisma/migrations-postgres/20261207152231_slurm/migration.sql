-- AlterTable
ALTER TABLE "Host" ADD COLUMN     "slurmNode" TEXT;

-- AlterTable
ALTER TABLE "Reservation" ADD COLUMN     "slurmMessage" TEXT,
ADD COLUMN     "slurmState" TEXT;

