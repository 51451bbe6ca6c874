/**
 * What the database micro-benchmarks (rollup-flush.ts, inventory-persist.ts)
 * share: a fresh, migrated SQLite database in a temporary folder that the
 * server's modules then use (their flags: args.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Points this process at a new SQLite database and migrates it. Call before
 * anything imports server modules that read the environment (env() is parsed
 * once); returns what removes it again.
 */
export async function useScratchDatabase(name: string): Promise<{ remove: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `gpudesk-${name}-`));
  process.env.GPUDESK_DATA_DIR = dir;
  delete process.env.DATABASE_URL;
  const { env } = await import("@/server/core/env");
  const { migrateDatabase } = await import("@/server/core/migrate");
  const { repoRoot } = await import("@/server/core/paths");
  const { disconnectDb } = await import("@/server/core/db");
  await migrateDatabase(env().DATABASE_URL, repoRoot);
  return {
    async remove() {
      await disconnectDb();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
