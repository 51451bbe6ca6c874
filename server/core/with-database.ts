import { describeDatabase, parseEnv } from "@/server/core/env";

/**
 * Runs a server-side command against the configured database (migrated
 * first, closed after) and says which database that was: GPUDESK_DATA_DIR
 * defaults to ./data of the current directory, so an account made elsewhere
 * would otherwise vanish silently into another file.
 */
export async function withDatabase<T>(work: () => Promise<T>): Promise<T> {
  const env = parseEnv();
  const { migrateDatabase } = await import("@/server/core/migrate");
  const { repoRoot } = await import("@/server/core/paths");
  const { disconnectDb } = await import("@/server/core/db");
  await migrateDatabase(env.DATABASE_URL, repoRoot);
  process.stderr.write(`Database: ${describeDatabase(env.DATABASE_URL)}\n`);
  const { withAuditOrigin } = await import("@/server/core/audit-context");
  try {
    // What the command changes is in the audit log as done on the server's command line.
    return await withAuditOrigin({ ip: null, via: "cli" }, work);
  } finally {
    await disconnectDb();
  }
}
