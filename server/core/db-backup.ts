import { chmodSync, existsSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { databaseProvider, describeDatabase } from "@/server/core/env";
import { AppError } from "@/server/core/errors";
import { resolveSqlitePath } from "@/server/core/sqlite-path";

export interface BackupResult {
  file: string;
  pages: number;
  ms: number;
}

/**
 * A consistent copy of the SQLite database while the server keeps writing:
 * `VACUUM INTO` writes the database as one read transaction sees it, so the
 * copy is one moment of the database, never half of a transaction. (The
 * online backup API starts over whenever another connection writes, and
 * against a busy writer it never finished.) Written next to its target and
 * renamed into place, so a failed backup leaves no truncated file behind.
 */
export async function backupDatabase(databaseUrl: string, target: string): Promise<BackupResult> {
  if (databaseProvider(databaseUrl) === "postgresql") {
    throw new AppError(
      "bad_request",
      `${describeDatabase(databaseUrl)} is PostgreSQL: back it up with pg_dump, e.g. pg_dump --format=custom --file=gpudesk.dump "$DATABASE_URL" (see docs/operations.md)`,
    );
  }
  const source = resolveSqlitePath(databaseUrl);
  if (!existsSync(source)) throw new AppError("not_found", `No database at ${source}: is GPUDESK_DATA_DIR (or DATABASE_URL) the server's?`);
  const file = path.resolve(target);
  if (file === source) throw new AppError("bad_request", "The backup must go to another file than the database itself");
  const partial = `${file}.partial`;
  const started = Date.now();
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    rmSync(partial, { force: true });
    db.prepare("VACUUM INTO ?").run(partial);
    const totalPages = db.pragma("page_count", { simple: true }) as number;
    // It holds what the database holds (password and token hashes): its owner alone reads it.
    chmodSync(partial, 0o600);
    renameSync(partial, file);
    return { file, pages: totalPages, ms: Date.now() - started };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    db.close();
  }
}
