import { copyFileSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { migrateDatabase } from "@/server/core/migrate";
import { repoRoot } from "@/server/core/paths";
import { templateDatabaseName } from "@/server/testing/postgres";

declare module "vitest" {
  export interface ProvidedContext {
    /** A SQLite file migrated once for the whole run (sqlite-global-setup.ts): each test file copies it. */
    gpudeskSqliteTemplate: string;
  }
}

/**
 * A migrated SQLite database for a whole test run: Prisma's migrate deploy
 * runs once (a CLI process, 1–2 s) instead of once per test file. The file
 * is checkpointed so that a plain copy of it is the whole database.
 */
export async function migrateSqliteTemplate(): Promise<string> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "gpudesk-template-")), "template.db");
  await migrateDatabase(`file:${file}`, repoRoot);
  const db = new Database(file);
  try {
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.pragma("journal_mode = DELETE");
  } finally {
    db.close();
  }
  return file;
}

/** A copy of the run's migrated template at `target`. */
export function copySqliteTemplate(template: string, target: string): void {
  copyFileSync(template, target);
}

/** The migrated template of a run on PostgreSQL: what `CREATE DATABASE … TEMPLATE` copies. */
export async function migratePostgresTemplate(runPrefix: string, adminUrl: string): Promise<void> {
  const url = new URL(adminUrl);
  url.pathname = `/${templateDatabaseName(runPrefix)}`;
  await migrateDatabase(url.toString(), repoRoot);
}
