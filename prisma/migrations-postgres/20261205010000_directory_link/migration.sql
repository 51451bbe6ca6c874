-- AlterTable
ALTER TABLE "user" ADD COLUMN     "directoryLink" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE UNIQUE INDEX "account_providerId_accountId_key" ON "account"("providerId", "accountId");


-- Accounts the directory made before subjects were bound (LDAP's had no account row and no password):
-- the next directory sign-in of their username may take them, once.
UPDATE "user" SET "directoryLink" = true WHERE "simulated" = false AND NOT EXISTS (SELECT 1 FROM "account" WHERE "account"."userId" = "user"."id");
