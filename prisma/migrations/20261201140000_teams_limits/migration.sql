-- AlterTable
ALTER TABLE "Reservation" ADD COLUMN "teamId" TEXT;

-- AlterTable
ALTER TABLE "WaitlistEntry" ADD COLUMN "teamId" TEXT;

-- CreateTable
CREATE TABLE "Team" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "share" REAL NOT NULL DEFAULT 1,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "TeamMember" (
    "teamId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "lead" BOOLEAN NOT NULL DEFAULT false,
    "accounting" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("teamId", "userId"),
    CONSTRAINT "TeamMember_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "BookingLimit" (
    "subject" TEXT NOT NULL PRIMARY KEY,
    "maxGpus" INTEGER,
    "gpuHoursPer7Days" REAL,
    "maxBookingMinutes" INTEGER,
    "hosts" TEXT,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "UnbookedUse" (
    "gpuUuid" TEXT NOT NULL,
    "minute" DATETIME NOT NULL,
    "hostId" TEXT NOT NULL,
    "ranBy" TEXT,
    "seconds" REAL NOT NULL,

    PRIMARY KEY ("gpuUuid", "minute")
);

-- CreateIndex
CREATE UNIQUE INDEX "Team_name_key" ON "Team"("name");

-- CreateIndex
CREATE INDEX "TeamMember_userId_idx" ON "TeamMember"("userId");

-- CreateIndex
CREATE INDEX "UnbookedUse_minute_idx" ON "UnbookedUse"("minute");

-- CreateIndex
CREATE INDEX "Reservation_teamId_endsAt_idx" ON "Reservation"("teamId", "endsAt");

