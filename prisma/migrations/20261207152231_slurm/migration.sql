-- Slurm underneath (issue 49): a host's Slurm NodeName, and whether Slurm holds a booking's reservation.
-- AlterTable
ALTER TABLE "Host" ADD COLUMN "slurmNode" TEXT;

-- AlterTable
ALTER TABLE "Reservation" ADD COLUMN "slurmMessage" TEXT;
ALTER TABLE "Reservation" ADD COLUMN "slurmState" TEXT;

