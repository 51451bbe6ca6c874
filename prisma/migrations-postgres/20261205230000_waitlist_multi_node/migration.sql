-- AlterTable
ALTER TABLE "WaitlistEntry" ADD COLUMN     "multiNode" TEXT;
