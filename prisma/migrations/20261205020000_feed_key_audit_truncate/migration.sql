-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_user" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "emailVerified" BOOLEAN NOT NULL DEFAULT false,
    "image" TEXT,
    "username" TEXT,
    "displayUsername" TEXT,
    "role" TEXT NOT NULL DEFAULT 'member',
    "banned" BOOLEAN DEFAULT false,
    "banReason" TEXT,
    "banExpires" DATETIME,
    "unixLogin" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "simulated" BOOLEAN NOT NULL DEFAULT false,
    "mustChangePassword" BOOLEAN NOT NULL DEFAULT false,
    "timeZone" TEXT,
    "directoryLink" BOOLEAN NOT NULL DEFAULT false,
    "calendarFeedKey" TEXT NOT NULL DEFAULT ''
);
INSERT INTO "new_user" ("banExpires", "banReason", "banned", "createdAt", "directoryLink", "displayUsername", "email", "emailVerified", "id", "image", "mustChangePassword", "name", "role", "simulated", "timeZone", "unixLogin", "updatedAt", "username") SELECT "banExpires", "banReason", "banned", "createdAt", "directoryLink", "displayUsername", "email", "emailVerified", "id", "image", "mustChangePassword", "name", "role", "simulated", "timeZone", "unixLogin", "updatedAt", "username" FROM "user";
DROP TABLE "user";
ALTER TABLE "new_user" RENAME TO "user";
CREATE UNIQUE INDEX "user_email_key" ON "user"("email");
CREATE UNIQUE INDEX "user_username_key" ON "user"("username");
CREATE UNIQUE INDEX "user_unixLogin_key" ON "user"("unixLogin");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

