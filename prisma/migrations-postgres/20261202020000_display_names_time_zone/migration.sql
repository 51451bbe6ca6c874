-- AlterTable
ALTER TABLE "user" ADD COLUMN     "timeZone" TEXT;

-- AlterTable
ALTER TABLE "Display" ADD COLUMN     "namesUnbookedRunner" BOOLEAN NOT NULL DEFAULT false;

