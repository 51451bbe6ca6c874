import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";
import { migrateDatabase } from "@/server/core/migrate";
import { repoRoot } from "@/server/core/paths";
import { createTestPostgresDatabase } from "@/server/testing/postgres";
import { copySqliteTemplate } from "@/server/testing/template-db";

/** Which database the test files run on: the "postgres" project of vitest.config.ts sets it. */
export function testDatabaseProvider(): "sqlite" | "postgresql" {
  return process.env.GPUDESK_TEST_DATABASE === "postgresql" ? "postgresql" : "sqlite";
}

/**
 * Points this test process at a fresh, migrated database of its own: a
 * SQLite file, or in the "postgres" test project a new PostgreSQL database
 * (dropped when the run ends). Call before anything touches `db()` (Vitest
 * runs each file in its own process). The database is a copy of the run's
 * template, migrated once by the project's global setup
 * (server/testing/*-global-setup.ts); without one (a file run outside those
 * projects) it is migrated here.
 */
export async function useTestDatabase(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-test-"));
  process.env.GPUDESK_DATA_DIR = dir;
  if (testDatabaseProvider() === "postgresql") {
    const url = await createTestPostgresDatabase(inject("gpudeskPostgresRun"), { fromTemplate: true });
    process.env.DATABASE_URL = url;
    return url;
  }
  const file = path.join(dir, "test.db");
  const url = `file:${file}`;
  process.env.DATABASE_URL = url;
  const template = inject("gpudeskSqliteTemplate");
  if (template) copySqliteTemplate(template, file);
  else await migrateDatabase(url, repoRoot);
  return url;
}
