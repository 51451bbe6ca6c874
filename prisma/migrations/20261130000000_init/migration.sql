-- CreateTable
CREATE TABLE "Host" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT,
    "tokenPrefix" TEXT,
    "simulated" BOOLEAN NOT NULL DEFAULT false,
    "driverVersion" TEXT,
    "cudaVersion" TEXT,
    "lastSeenAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Gpu" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uuid" TEXT NOT NULL,
    "hostId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "pciBusId" TEXT,
    "memoryTotalMiB" INTEGER,
    "migMode" TEXT,
    "firstSeenAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Gpu_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "Host" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Host_name_key" ON "Host"("name");

-- CreateIndex
CREATE UNIQUE INDEX "Host_tokenHash_key" ON "Host"("tokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "Gpu_uuid_key" ON "Gpu"("uuid");

-- CreateIndex
CREATE INDEX "Gpu_hostId_idx" ON "Gpu"("hostId");
