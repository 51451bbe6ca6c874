import { closeSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";

/** Turns a `file:` DATABASE_URL into an absolute path for better-sqlite3. */
export function resolveSqlitePath(databaseUrl: string): string {
  if (!databaseUrl.startsWith("file:")) {
    throw new Error(`DATABASE_URL must start with file: for SQLite, got ${databaseUrl.split(":")[0]}:`);
  }
  const file = databaseUrl.slice("file:".length).replace(/^\/\/(?=\/)/, "");
  return path.resolve(file);
}

/**
 * Creates the SQLite file (and its folder) owner-only before anything opens
 * it: it holds password hashes and sessions. SQLite gives its journal files
 * the database file's permissions. An existing file or folder is left as
 * the operator set it.
 */
export function createPrivateSqliteFile(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, "a", 0o600));
}
