-- DropTable
DROP TABLE "UnbookedUse";

