-- AlterTable
ALTER TABLE "Reservation" ADD COLUMN     "groupId" TEXT,
ADD COLUMN     "nodeCount" INTEGER,
ADD COLUMN     "nodeRank" INTEGER;

-- CreateIndex
CREATE INDEX "Reservation_groupId_idx" ON "Reservation"("groupId");

