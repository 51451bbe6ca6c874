/**
 * Derives prisma/postgres/schema.prisma from prisma/schema.prisma and writes
 * the PostgreSQL migration that goes with the change.
 *
 *   npm run db:postgres-schema                        # nothing to do, or says what is missing
 *   npm run db:postgres-schema -- --migration <name>  # writes the schema and its migration
 *
 * The migration SQL is what `prisma migrate diff --script` answers between
 * the derived schema as it was and as it is now: offline, no database (see
 * ARCHITECTURE.md, "PostgreSQL schema changes"). gpudesk applies it at start
 * (server/core/migrate-postgres.ts).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  derivePostgresSchema,
  POSTGRES_MIGRATIONS_PATH,
  POSTGRES_SCHEMA_PATH,
  SQLITE_SCHEMA_PATH,
} from "../server/core/postgres-schema";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

function prisma(args: string[], config: string, databaseUrl?: string): string {
  const result = spawnSync(process.execPath, [require.resolve("prisma/build/index.js"), ...args, "--config", config], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
  });
  if (result.status !== 0) throw new Error(`prisma ${args.join(" ")} failed:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** `20261130123456` for now, in UTC, as Prisma names migration folders. */
function timestamp(now = new Date()): string {
  return now.toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

function main(): void {
  const nameAt = process.argv.indexOf("--migration");
  const name = nameAt >= 0 ? process.argv[nameAt + 1] : undefined;
  if (nameAt >= 0 && !(name && /^[a-z0-9_]{1,100}$/.test(name))) {
    throw new Error("--migration needs a name of lower-case letters, digits and underscores");
  }

  const schemaFile = path.join(root, POSTGRES_SCHEMA_PATH);
  const wanted = derivePostgresSchema(readFileSync(path.join(root, SQLITE_SCHEMA_PATH), "utf8"));
  const current = existsSync(schemaFile) ? readFileSync(schemaFile, "utf8") : null;
  if (current === wanted) {
    console.log(`${POSTGRES_SCHEMA_PATH} is up to date`);
    return;
  }

  // The CLI reads the schema its config names even for a diff of two files: it must be there.
  writeFileSync(schemaFile, wanted);
  const scratch = mkdtempSync(path.join(os.tmpdir(), "gpudesk-pg-schema-"));
  let keep = false;
  try {
    let from = ["--from-empty"];
    if (current !== null) {
      writeFileSync(path.join(scratch, "current.prisma"), current);
      from = ["--from-schema-datamodel", path.join(scratch, "current.prisma")];
    }
    // The CLI opens its adapter's connection even for a diff of two files. The SQLite
    // configuration needs no server, and the SQL follows the schemas' provider.
    const sql = prisma(
      ["migrate", "diff", ...from, "--to-schema-datamodel", schemaFile, "--script"],
      "prisma.config.ts",
      `file:${path.join(scratch, "diff.db")}`,
    );
    if (!/^-- This is an empty migration\.\s*$/.test(sql.trim())) {
      if (!name) {
        console.error("The models changed: name the PostgreSQL migration, e.g.\n  npm run db:postgres-schema -- --migration add_something");
        process.exitCode = 1;
        return;
      }
      const folder = path.join(root, POSTGRES_MIGRATIONS_PATH, `${timestamp()}_${name}`);
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(folder, "migration.sql"), sql);
      console.log(`wrote ${path.relative(root, folder)}/migration.sql`);
    }
    keep = true;
    console.log(`wrote ${POSTGRES_SCHEMA_PATH}`);
    const generated = spawnSync(process.execPath, [path.join(root, "scripts", "prisma-generate.mjs")], { cwd: root, stdio: "inherit" });
    if (generated.status !== 0) throw new Error("generating the Prisma clients failed");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    // Without its migration, the new schema would hide the change from the next run.
    if (!keep) {
      if (current === null) rmSync(schemaFile, { force: true });
      else writeFileSync(schemaFile, current);
    }
  }
}

main();
