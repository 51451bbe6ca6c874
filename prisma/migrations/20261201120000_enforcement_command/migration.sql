-- CreateTable
CREATE TABLE "EnforcementCommand" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "hostId" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sigtermAt" DATETIME,
    "closedAt" DATETIME
);

-- CreateIndex
CREATE INDEX "EnforcementCommand_hostId_createdAt_idx" ON "EnforcementCommand"("hostId", "createdAt");

