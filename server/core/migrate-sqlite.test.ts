import { mkdtempSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migrateDatabase, sqliteMigrationsPending } from "@/server/core/migrate";
import { repoRoot } from "@/server/core/paths";

/*
 * A CLI command (`gpudesk user add`) migrates before it writes. Beside a running
 * server the database is open in WAL mode, where Prisma's migrate deploy
 * (exclusive locking mode) can never get in: an up-to-date database must not
 * be migrated at all.
 */
describe("SQLite migrations beside a server that has the database open", () => {
  it("does nothing to an up-to-date database that another connection holds open in WAL mode", async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "gpudesk-migrate-")), "gpudesk.db");
    const migrations = path.join(repoRoot, "prisma", "migrations");
    const all = readdirSync(migrations, { withFileTypes: true }).filter((entry) => entry.isDirectory()).length;
    await migrateDatabase(`file:${file}`, repoRoot);
    expect(sqliteMigrationsPending(file, migrations)).toBe(0);
    // The server's connection: WAL mode, open, having read.
    const server = new Database(file);
    server.pragma("journal_mode = WAL");
    server.prepare('SELECT count(*) FROM "_prisma_migrations"').get();
    try {
      await migrateDatabase(`file:${file}`, repoRoot);
    } finally {
      server.close();
    }
    const fresh = path.join(path.dirname(file), "empty.db");
    new Database(fresh).close();
    expect(sqliteMigrationsPending(fresh, migrations)).toBe(all);
  }, 120_000);
});
