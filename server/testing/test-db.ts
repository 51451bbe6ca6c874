import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";
import { migrateDatabase } from "@/server/db/migrate";
import { repoRoot } from "@/server/paths";
import { createTestPostgresDatabase } from "@/server/testing/postgres";

/** Which database the test files run on: the "postgres" project of vitest.config.ts sets it. */
export function testDatabaseProvider(): "sqlite" | "postgresql" {
  return process.env.GPUDESK_TEST_DATABASE === "postgresql" ? "postgresql" : "sqlite";
}

/**
 * Points this test process at a fresh, migrated database of its own: a
 * SQLite file, or in the "postgres" test project a new PostgreSQL database
 * (dropped when the run ends). Call before anything touches `db()` (Vitest
 * runs each file in its own process).
 */
export async function useTestDatabase(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-test-"));
  const url =
    testDatabaseProvider() === "postgresql"
      ? await createTestPostgresDatabase(inject("gpudeskPostgresRun"))
      : `file:${path.join(dir, "test.db")}`;
  process.env.DATABASE_URL = url;
  process.env.GPUDESK_DATA_DIR = dir;
  await migrateDatabase(url, repoRoot);
  return url;
}
