import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import Database from "better-sqlite3";
import { POSTGRES_MIGRATIONS_PATH } from "@/server/core/postgres-schema";
import { databaseProvider } from "@/server/core/env";
import { createPrivateSqliteFile, resolveSqlitePath } from "@/server/core/sqlite-path";

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
    const { migratePostgres } = await import("@/server/core/migrate-postgres");
    await migratePostgres(databaseUrl, path.join(repoRoot, POSTGRES_MIGRATIONS_PATH));
    return;
  }
  const file = resolveSqlitePath(databaseUrl);
  // A database that has every migration needs nothing. And Prisma's migrate deploy takes
  // SQLite's exclusive locking mode, which a database in WAL mode cannot grant while a
  // server has it open: a CLI command beside a running server must not try.
  if (existsSync(file) && sqliteMigrationsPending(file, path.join(repoRoot, "prisma", "migrations")) === 0) return;
  createPrivateSqliteFile(file);
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
  if (code !== 0) {
    const text = output.join("").trim();
    const busy = /SocketTimeout|SQLITE_BUSY|database is locked/.test(text);
    throw new Error(
      busy
        ? `database migration failed: ${file} is in use (a running gpudesk server?); migrations need it to themselves: stop the server, or let its next start migrate\n${text}`
        : `database migration failed:\n${text}`,
    );
  }
}

/**
 * How many of the SQLite migrations in `dir` the database has not applied
 * (as Prisma records them in `_prisma_migrations`); a plain read, which works
 * beside a running server. Unknown (a database without the table, one that
 * cannot be read) counts as pending.
 */
export function sqliteMigrationsPending(file: string, dir: string): number {
  const wanted = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name);
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { fileMustExist: true, timeout: 5_000 });
    const applied = new Set(
      (db.prepare('SELECT "migration_name" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL').all() as { migration_name: string }[]).map(
        (row) => row.migration_name,
      ),
    );
    return wanted.filter((name) => !applied.has(name)).length;
  } catch {
    return wanted.length || 1;
  } finally {
    db?.close();
  }
}
