import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { ConfigError, describeDatabase } from "@/server/core/env";
import { log } from "@/server/core/log";

/**
 * Applies prisma/migrations-postgres to a PostgreSQL database, as Prisma's
 * `migrate deploy` would: Prisma's own command fails through the pg driver
 * adapter (prisma/orm issue 27403, see ARCHITECTURE.md), so gpudesk does it
 * and keeps Prisma's bookkeeping, so that `prisma migrate status` or
 * `migrate deploy` on a machine with Prisma's schema engine agrees:
 *
 * - the same `_prisma_migrations` table, one row per migration, `checksum`
 *   the sha256 of its migration.sql;
 * - the same advisory lock (Prisma Migrate's key), held for the whole run, so
 *   that of several gpudesk instances starting at once (or one instance and
 *   a `prisma migrate deploy`) one migrates and the others then find nothing
 *   left to do;
 * - a migration that started and never finished (`finished_at` and
 *   `rolled_back_at` both null, left by Prisma or by a crash) stops
 *   everything, as Prisma's P3009 does: the database is in an unknown state.
 *
 * Unlike Prisma, each migration runs in a transaction of its own with its
 * row, so a failing one leaves the database as it was; its row is then
 * recorded as rolled back, with the error in `logs`, and the next start
 * tries it again. (So a migration must not need to run outside a
 * transaction, e.g. CREATE INDEX CONCURRENTLY.)
 */

/** Prisma Migrate's advisory lock key on PostgreSQL (its timeout message names it). */
export const PRISMA_MIGRATE_LOCK_KEY = 72707369;

/** How long to wait for another instance's migration before giving up. */
const LOCK_WAIT = "5min";

/** `_prisma_migrations` as Prisma creates it on PostgreSQL. */
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface LocalMigration {
  name: string;
  sql: string;
  checksum: string;
}

export interface PostgresMigrationResult {
  /** Names of the migrations this run applied, in order. */
  applied: string[];
}

export class MigrationError extends Error {}

/** The migrations of a folder, in the order Prisma applies them (by folder name). */
export function readMigrations(dir: string): LocalMigration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const bytes = readFileSync(path.join(dir, name, "migration.sql"));
      return { name, sql: bytes.toString("utf8"), checksum: createHash("sha256").update(bytes).digest("hex") };
    });
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  started_at: Date;
  logs: string | null;
}

export async function migratePostgres(databaseUrl: string, migrationsDir: string): Promise<PostgresMigrationResult> {
  const migrations = readMigrations(migrationsDir);
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "gpudesk migrate" });
  try {
    await client.connect();
  } catch (error) {
    // The server cannot start without it: say where it looked, as one line (no password).
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`DATABASE_URL: cannot connect to PostgreSQL at ${describeDatabase(databaseUrl)}: ${reason}`);
  }
  try {
    await client.query(`SET lock_timeout = '${LOCK_WAIT}'`);
    try {
      await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK_KEY]);
    } catch (error) {
      if ((error as { code?: string }).code === "55P03") {
        throw new MigrationError(
          `another process has been migrating the database for over ${LOCK_WAIT} (advisory lock ${PRISMA_MIGRATE_LOCK_KEY}); ` +
            "gpudesk did not migrate. Check for a stuck gpudesk or `prisma migrate` (pg_locks, locktype 'advisory').",
        );
      }
      throw error;
    }
    await client.query("SET lock_timeout = 0");
    try {
      return await applyPending(client, migrations);
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}

async function applyPending(client: pg.Client, migrations: LocalMigration[]): Promise<PostgresMigrationResult> {
  await client.query(MIGRATIONS_TABLE);
  const { rows } = await client.query<MigrationRow>(
    `SELECT "migration_name", "checksum", "finished_at", "rolled_back_at", "started_at", "logs"
       FROM "_prisma_migrations" ORDER BY "started_at"`,
  );

  const failed = rows.find((row) => row.finished_at === null && row.rolled_back_at === null);
  if (failed) {
    throw new MigrationError(
      `migration ${failed.migration_name} started at ${failed.started_at.toISOString()} and never finished, ` +
        "so the database may be half-changed; gpudesk applies no migration until that is resolved (Prisma's P3009). " +
        "Compare the database with its migration.sql, then either undo what it did and mark it rolled back " +
        `(UPDATE "_prisma_migrations" SET "rolled_back_at" = now() WHERE "migration_name" = '${failed.migration_name}' AND "finished_at" IS NULL; ` +
        "it is applied again at the next start) or finish it by hand and set its \"finished_at\"." +
        (failed.logs ? `\nIts log:\n${failed.logs}` : ""),
    );
  }

  const local = new Map(migrations.map((migration) => [migration.name, migration]));
  const applied = new Map<string, MigrationRow>();
  for (const row of rows) if (row.finished_at !== null && row.rolled_back_at === null) applied.set(row.migration_name, row);
  for (const row of applied.values()) {
    const migration = local.get(row.migration_name);
    if (!migration) {
      log.warn(`database migration ${row.migration_name} is applied but not among this gpudesk's migrations (a newer version migrated this database?)`);
    } else if (migration.checksum !== row.checksum) {
      log.warn(`database migration ${row.migration_name} was changed after it was applied; the database has the old version`);
    }
  }

  const result: PostgresMigrationResult = { applied: [] };
  for (const migration of migrations) {
    if (applied.has(migration.name)) continue;
    await applyOne(client, migration);
    result.applied.push(migration.name);
  }
  if (result.applied.length > 0) log.info(`database migrated: ${result.applied.join(", ")}`);
  return result;
}

async function applyOne(client: pg.Client, migration: LocalMigration): Promise<void> {
  const id = randomUUID();
  const startedAt = new Date();
  await client.query("BEGIN");
  try {
    // No parameters: the simple query protocol runs the file's several statements.
    await client.query(migration.sql);
    await client.query(
      `INSERT INTO "_prisma_migrations" ("id", "checksum", "finished_at", "migration_name", "started_at", "applied_steps_count")
       VALUES ($1, $2, clock_timestamp(), $3, $4, 1)`,
      [id, migration.checksum, migration.name, startedAt],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    const message = error instanceof Error ? error.message : String(error);
    // Recorded as Prisma records a migration marked rolled back: the next run applies it again.
    await client.query(
      `INSERT INTO "_prisma_migrations" ("id", "checksum", "migration_name", "logs", "rolled_back_at", "started_at", "applied_steps_count")
       VALUES ($1, $2, $3, $4, now(), $5, 0)`,
      [id, migration.checksum, migration.name, message, startedAt],
    );
    throw new MigrationError(`database migration ${migration.name} failed and was rolled back: ${message}`);
  }
}
