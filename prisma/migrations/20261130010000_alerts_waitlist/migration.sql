-- CreateTable
CREATE TABLE "Alert" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "subjectKey" TEXT NOT NULL,
    "hostId" TEXT,
    "gpuUuid" TEXT,
    "gpuIndex" INTEGER,
    "reservationId" TEXT,
    "userIds" TEXT NOT NULL DEFAULT '[]',
    "message" TEXT NOT NULL,
    "evidence" TEXT NOT NULL DEFAULT '{}',
    "openedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closedAt" DATETIME,
    "acknowledgedAt" DATETIME,
    "acknowledgedById" TEXT
);

-- CreateTable
CREATE TABLE "Webhook" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "url" TEXT NOT NULL,
    "format" TEXT NOT NULL DEFAULT 'json',
    "kinds" TEXT NOT NULL DEFAULT '[]',
    "userId" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "webhookId" TEXT NOT NULL,
    "alertId" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastError" TEXT,
    "lastStatusCode" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" DATETIME,
    CONSTRAINT "WebhookDelivery_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "HostSetting" (
    "hostId" TEXT NOT NULL PRIMARY KEY,
    "terminateIntruders" BOOLEAN NOT NULL DEFAULT false,
    "graceSeconds" INTEGER NOT NULL DEFAULT 300,
    "killAfterSeconds" INTEGER NOT NULL DEFAULT 30
);

-- CreateTable
CREATE TABLE "WaitlistEntry" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "hostName" TEXT,
    "gpuCount" INTEGER NOT NULL,
    "minFreeMemoryMiB" INTEGER,
    "durationMinutes" INTEGER NOT NULL,
    "purpose" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'waiting',
    "reservationId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "grantedAt" DATETIME,
    "expiresAt" DATETIME
);

-- CreateIndex
CREATE INDEX "Alert_closedAt_idx" ON "Alert"("closedAt");

-- CreateIndex
CREATE INDEX "Alert_subjectKey_closedAt_idx" ON "Alert"("subjectKey", "closedAt");

-- CreateIndex
CREATE INDEX "Alert_openedAt_idx" ON "Alert"("openedAt");

-- CreateIndex
CREATE INDEX "Webhook_userId_idx" ON "Webhook"("userId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_createdAt_idx" ON "WebhookDelivery"("createdAt");

-- CreateIndex
CREATE INDEX "WaitlistEntry_status_createdAt_idx" ON "WaitlistEntry"("status", "createdAt");

-- CreateIndex
CREATE INDEX "WaitlistEntry_userId_status_idx" ON "WaitlistEntry"("userId", "status");
