-- AlterTable
ALTER TABLE "user" ADD COLUMN     "simulated" BOOLEAN NOT NULL DEFAULT false;

