-- AlterTable
ALTER TABLE "Reservation" ADD COLUMN     "teamId" TEXT;

-- AlterTable
ALTER TABLE "WaitlistEntry" ADD COLUMN     "teamId" TEXT;

-- CreateTable
CREATE TABLE "Team" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "share" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Team_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TeamMember" (
    "teamId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "lead" BOOLEAN NOT NULL DEFAULT false,
    "accounting" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TeamMember_pkey" PRIMARY KEY ("teamId","userId")
);

-- CreateTable
CREATE TABLE "BookingLimit" (
    "subject" TEXT NOT NULL,
    "maxGpus" INTEGER,
    "gpuHoursPer7Days" DOUBLE PRECISION,
    "maxBookingMinutes" INTEGER,
    "hosts" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "BookingLimit_pkey" PRIMARY KEY ("subject")
);

-- CreateTable
CREATE TABLE "UnbookedUse" (
    "gpuUuid" TEXT NOT NULL,
    "minute" TIMESTAMP(3) NOT NULL,
    "hostId" TEXT NOT NULL,
    "ranBy" TEXT,
    "seconds" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "UnbookedUse_pkey" PRIMARY KEY ("gpuUuid","minute")
);

-- CreateIndex
CREATE UNIQUE INDEX "Team_name_key" ON "Team"("name");

-- CreateIndex
CREATE INDEX "TeamMember_userId_idx" ON "TeamMember"("userId");

-- CreateIndex
CREATE INDEX "UnbookedUse_minute_idx" ON "UnbookedUse"("minute");

-- CreateIndex
CREATE INDEX "Reservation_teamId_endsAt_idx" ON "Reservation"("teamId", "endsAt");

-- AddForeignKey
ALTER TABLE "TeamMember" ADD CONSTRAINT "TeamMember_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;

