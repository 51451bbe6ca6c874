-- AlterTable
ALTER TABLE "Reservation" ADD COLUMN "groupId" TEXT;
ALTER TABLE "Reservation" ADD COLUMN "nodeCount" INTEGER;
ALTER TABLE "Reservation" ADD COLUMN "nodeRank" INTEGER;

-- CreateIndex
CREATE INDEX "Reservation_groupId_idx" ON "Reservation"("groupId");

