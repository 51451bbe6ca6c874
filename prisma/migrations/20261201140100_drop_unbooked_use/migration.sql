-- DropTable
PRAGMA foreign_keys=off;
DROP TABLE "UnbookedUse";
PRAGMA foreign_keys=on;

