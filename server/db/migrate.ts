import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { POSTGRES_MIGRATIONS_PATH } from "@/server/db/postgres-schema";
import { databaseProvider } from "@/server/env";
import { createPrivateSqliteFile, resolveSqlitePath } from "@/server/sqlite-path";

const require = createRequire(import.meta.url);

/**
 * Brings the database up to date. SQLite: creates the file if needed and
 * applies prisma/migrations with Prisma's own `migrate deploy` (WebAssembly
 * schema engine, no download). PostgreSQL: applies prisma/migrations-postgres
 * with gpudesk's own migrator, which keeps Prisma's bookkeeping.
 */
export async function migrateDatabase(databaseUrl: string, repoRoot: string): Promise<void> {
  if (databaseProvider(databaseUrl) === "postgresql") {
    // pg is loaded only for PostgreSQL: a SQLite server never needs it.
    const { migratePostgres } = await import("@/server/db/migrate-postgres");
    await migratePostgres(databaseUrl, path.join(repoRoot, POSTGRES_MIGRATIONS_PATH));
    return;
  }
  createPrivateSqliteFile(resolveSqlitePath(databaseUrl));
  const prismaCli = require.resolve("prisma/build/index.js");
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [prismaCli, "migrate", "deploy"], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    child.on("error", reject);
    child.on("close", resolve);
  });
  if (code !== 0) throw new Error(`database migration failed:\n${output.join("").trim()}`);
}
