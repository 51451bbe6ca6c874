import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrateDatabase } from "@/server/db/migrate";
import { repoRoot } from "@/server/paths";

/**
 * Points this test process at a fresh, migrated SQLite database of its own.
 * Call before anything touches `db()` (Vitest runs each file in its own process).
 */
export async function useTestDatabase(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-test-"));
  const url = `file:${path.join(dir, "test.db")}`;
  process.env.DATABASE_URL = url;
  process.env.GPUDESK_DATA_DIR = dir;
  await migrateDatabase(url, repoRoot);
  return url;
}
