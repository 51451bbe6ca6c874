-- AlterTable
ALTER TABLE "user" ADD COLUMN "timeZone" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Display" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "tokenPrefix" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME,
    "namesUnbookedRunner" BOOLEAN NOT NULL DEFAULT false
);
INSERT INTO "new_Display" ("createdAt", "id", "lastUsedAt", "name", "revokedAt", "tokenHash", "tokenPrefix") SELECT "createdAt", "id", "lastUsedAt", "name", "revokedAt", "tokenHash", "tokenPrefix" FROM "Display";
DROP TABLE "Display";
ALTER TABLE "new_Display" RENAME TO "Display";
CREATE UNIQUE INDEX "Display_name_key" ON "Display"("name");
CREATE UNIQUE INDEX "Display_tokenHash_key" ON "Display"("tokenHash");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

