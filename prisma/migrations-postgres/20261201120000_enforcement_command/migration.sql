-- CreateTable
CREATE TABLE "EnforcementCommand" (
    "id" TEXT NOT NULL,
    "hostId" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sigtermAt" TIMESTAMP(3),
    "closedAt" TIMESTAMP(3),

    CONSTRAINT "EnforcementCommand_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "EnforcementCommand_hostId_createdAt_idx" ON "EnforcementCommand"("hostId", "createdAt");

