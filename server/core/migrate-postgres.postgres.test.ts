import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { MigrationError, migratePostgres, PRISMA_MIGRATE_LOCK_KEY } from "@/server/core/migrate-postgres";
import { POSTGRES_MIGRATIONS_PATH } from "@/server/core/postgres-schema";
import { ConfigError } from "@/server/core/env";
import { log } from "@/server/core/log";
import { repoRoot } from "@/server/core/paths";
import { createTestPostgresDatabase } from "@/server/testing/postgres";

const migrationsDir = path.join(repoRoot, POSTGRES_MIGRATIONS_PATH);
const migrationNames = readdirSync(migrationsDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const newDatabase = () => createTestPostgresDatabase(inject("gpudeskPostgresRun"));

async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

interface Row {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  applied_steps_count: number;
  logs: string | null;
}

const records = (url: string) =>
  query<Row>(
    url,
    `SELECT "migration_name", "checksum", "finished_at", "rolled_back_at", "applied_steps_count", "logs"
       FROM "_prisma_migrations" ORDER BY "started_at", "migration_name"`,
  );

/** A migrations folder of its own: the first `count` real migrations, plus extra ones. */
function migrationsFolder(count: number, extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-pg-migrations-"));
  for (const name of migrationNames.slice(0, count)) cpSync(path.join(migrationsDir, name), path.join(dir, name), { recursive: true });
  for (const [name, sql] of Object.entries(extra)) {
    mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, name, "migration.sql"), sql);
  }
  return dir;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("PostgreSQL migrations", () => {
  it("has at least the initial migration and the no-overlap constraint, for the partial-migration test", () => {
    expect(migrationNames.length).toBeGreaterThanOrEqual(2);
  });

  it("migrates a fresh database and records each migration as Prisma does", async () => {
    const url = await newDatabase();
    const result = await migratePostgres(url, migrationsDir);
    expect(result.applied).toEqual(migrationNames);

    const rows = await records(url);
    expect(rows.map((row) => row.migration_name)).toEqual(migrationNames);
    for (const row of rows) {
      const sql = readFileSync(path.join(migrationsDir, row.migration_name, "migration.sql"));
      expect(row.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
    // Prisma's table, column for column.
    const columns = await query<{ column_name: string; data_type: string; character_maximum_length: number | null; is_nullable: string }>(
      url,
      `SELECT column_name, data_type, character_maximum_length, is_nullable FROM information_schema.columns
        WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns.map((c) => [c.column_name, c.data_type, c.character_maximum_length, c.is_nullable])).toEqual([
      ["id", "character varying", 36, "NO"],
      ["checksum", "character varying", 64, "NO"],
      ["finished_at", "timestamp with time zone", null, "YES"],
      ["migration_name", "character varying", 255, "NO"],
      ["logs", "text", null, "YES"],
      ["rolled_back_at", "timestamp with time zone", null, "YES"],
      ["started_at", "timestamp with time zone", null, "NO"],
      ["applied_steps_count", "integer", null, "NO"],
    ]);
    // The models' tables are there.
    const tables = await query<{ table_name: string }>(url, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`);
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(["Host", "Gpu", "user", "Reservation", "ReservationGpu", "GpuMinute", "GpuMinuteBlock"]));
  });

  it("says in one line, without the password, when it cannot reach the database", async () => {
    const error = await migratePostgres("postgresql://gpudesk:hunter2@127.0.0.1:1/gpudesk", migrationsDir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^DATABASE_URL: cannot connect to PostgreSQL at postgresql:\/\/gpudesk:\*\*\*@127\.0\.0\.1:1\/gpudesk: /);
    expect((error as Error).message).not.toContain("hunter2");
  });

  it("does nothing on an up-to-date database", async () => {
    const url = await newDatabase();
    await migratePostgres(url, migrationsDir);
    const before = await records(url);
    expect((await migratePostgres(url, migrationsDir)).applied).toEqual([]);
    expect(await records(url)).toEqual(before);
  });

  it("applies only the rest to a partly migrated database", async () => {
    const url = await newDatabase();
    expect((await migratePostgres(url, migrationsFolder(1))).applied).toEqual(migrationNames.slice(0, 1));
    expect((await migratePostgres(url, migrationsDir)).applied).toEqual(migrationNames.slice(1));
    expect((await records(url)).map((row) => row.migration_name)).toEqual(migrationNames);
  });

  it("refuses to go on past a migration that started and never finished", async () => {
    const url = await newDatabase();
    await migratePostgres(url, migrationsFolder(1));
    // What Prisma leaves behind when a migration fails halfway (or a process dies in one).
    await query(
      url,
      `INSERT INTO "_prisma_migrations" ("id", "checksum", "migration_name", "logs", "started_at", "applied_steps_count")
       VALUES ('4b7b0a5e-0000-4000-8000-000000000001', $1, $2, 'boom', now(), 0)`,
      ["0".repeat(64), migrationNames[1]],
    );
    const error = await migratePostgres(url, migrationsDir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toContain(`migration ${migrationNames[1]} started`);
    expect((error as Error).message).toContain("P3009");
    expect((error as Error).message).toContain("boom");
    // Nothing was applied: the no-overlap constraint is still missing.
    const constraints = await query(url, `SELECT 1 FROM pg_constraint WHERE conname = 'ReservationGpu_no_overlap'`);
    expect(constraints).toEqual([]);

    // Marked rolled back (as `prisma migrate resolve --rolled-back` does), it is applied at the next run.
    await query(url, `UPDATE "_prisma_migrations" SET "rolled_back_at" = now() WHERE "finished_at" IS NULL`);
    expect((await migratePostgres(url, migrationsDir)).applied).toEqual(migrationNames.slice(1));
  });

  it("rolls a failing migration back whole, records it as rolled back, and applies it once it is fixed", async () => {
    const url = await newDatabase();
    const name = "29990101000000_broken";
    const broken = migrationsFolder(1, { [name]: `CREATE TABLE "Half" ("id" TEXT);\nSELECT no_such_function();\n` });
    const error = await migratePostgres(url, broken).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toMatch(new RegExp(`${name} failed and was rolled back: .*no_such_function`));
    expect(await query(url, `SELECT 1 FROM information_schema.tables WHERE table_name = 'Half'`)).toEqual([]);
    const failed = (await records(url)).find((row) => row.migration_name === name);
    expect(failed).toMatchObject({ finished_at: null, applied_steps_count: 0, logs: expect.stringContaining("no_such_function") });
    expect(failed?.rolled_back_at).toBeInstanceOf(Date);

    writeFileSync(path.join(broken, name, "migration.sql"), `CREATE TABLE "Half" ("id" TEXT);\n`);
    expect((await migratePostgres(url, broken)).applied).toEqual([name]);
  });

  it("warns when an applied migration's file has changed since, and applies nothing", async () => {
    const url = await newDatabase();
    const dir = migrationsFolder(1);
    await migratePostgres(url, dir);
    writeFileSync(path.join(dir, migrationNames[0], "migration.sql"), "-- edited afterwards\n", { flag: "a" });
    const warn = vi.spyOn(log, "warn").mockImplementation(() => {});
    expect((await migratePostgres(url, dir)).applied).toEqual([]);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining(`${migrationNames[0]} was changed after it was applied`));
  });

  it("lets one of several instances starting at once migrate; each migration is applied exactly once", async () => {
    const url = await newDatabase();
    const results = await Promise.all(Array.from({ length: 4 }, () => migratePostgres(url, migrationsDir)));
    expect(results.flatMap((result) => result.applied).sort()).toEqual(migrationNames);
    const rows = await records(url);
    expect(rows.map((row) => row.migration_name)).toEqual(migrationNames);
    expect(rows.every((row) => row.finished_at !== null)).toBe(true);
  });

  it("waits for Prisma Migrate's advisory lock, held by someone else, before migrating", async () => {
    const url = await newDatabase();
    const lockOwner = new pg.Client({ connectionString: url });
    await lockOwner.connect();
    try {
      await lockOwner.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK_KEY]);
      let done = false;
      const migrating = migratePostgres(url, migrationsDir).then((result) => {
        done = true;
        return result;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(done).toBe(false);
      await lockOwner.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK_KEY]);
      expect((await migrating).applied).toEqual(migrationNames);
    } finally {
      await lockOwner.end();
    }
  });
});

describe("the no-overlap constraint on booked GPUs", () => {
  it("refuses a second booking of a GPU at the same time, and allows one after the first was released or withdrawn", async () => {
    const url = await newDatabase();
    await migratePostgres(url, migrationsDir);
    await query(
      url,
      `INSERT INTO "user" ("id", "name", "email", "updatedAt") VALUES ('u1', 'U', 'u@example.test', now());
       INSERT INTO "Host" ("id", "name", "updatedAt") VALUES ('h1', 'node-a', now());
       INSERT INTO "Gpu" ("id", "uuid", "hostId", "index", "name") VALUES ('g1', 'GPU-1', 'h1', 0, 'H100');`,
    );
    const book = async (id: string, from: string, to: string) => {
      await query(
        url,
        `INSERT INTO "Reservation" ("id", "userId", "hostId", "startsAt", "endsAt", "purpose", "updatedAt")
         VALUES ($1, 'u1', 'h1', $2, $3, 'test', now())`,
        [id, from, to],
      );
      await query(url, `INSERT INTO "ReservationGpu" ("reservationId", "gpuId", "startsAt", "endsAt") VALUES ($1, 'g1', $2, $3)`, [id, from, to]);
    };
    await book("r1", "2026-12-01T10:00:00Z", "2026-12-01T12:00:00Z");
    await expect(book("r2", "2026-12-01T11:00:00Z", "2026-12-01T13:00:00Z")).rejects.toMatchObject({ code: "23P01" });
    // Back to back is no overlap: ranges are half-open.
    await book("r3", "2026-12-01T12:00:00Z", "2026-12-01T13:00:00Z");

    // Released early at 10:30 (endsAt moves back): the rest of its time is free again.
    await query(url, `UPDATE "ReservationGpu" SET "endsAt" = '2026-12-01T10:30:00Z' WHERE "reservationId" = 'r1'`);
    await book("r4", "2026-12-01T10:30:00Z", "2026-12-01T12:00:00Z");
    // Withdrawn before its start (endsAt = startsAt, an empty range): takes nothing.
    await query(url, `UPDATE "ReservationGpu" SET "endsAt" = "startsAt" WHERE "reservationId" = 'r3'`);
    await book("r5", "2026-12-01T12:00:00Z", "2026-12-01T13:00:00Z");
  });
});
