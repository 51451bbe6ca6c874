import path from "node:path";

/** Turns a `file:` DATABASE_URL into an absolute path for better-sqlite3. */
export function resolveSqlitePath(databaseUrl: string): string {
  if (!databaseUrl.startsWith("file:")) {
    throw new Error(`DATABASE_URL must start with file: for SQLite, got ${databaseUrl.split(":")[0]}:`);
  }
  const file = databaseUrl.slice("file:".length).replace(/^\/\/(?=\/)/, "");
  return path.resolve(file);
}
