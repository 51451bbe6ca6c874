import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Prisma } from "@prisma/client";
import { describe, expect, it } from "vitest";
import { derivePostgresSchema, POSTGRES_MIGRATIONS_PATH, POSTGRES_SCHEMA_PATH, SQLITE_SCHEMA_PATH } from "@/server/core/postgres-schema";
import { repoRoot } from "@/server/core/paths";

const read = (relative: string) => readFileSync(path.join(repoRoot, relative), "utf8");

describe("the PostgreSQL schema", () => {
  it("is prisma/schema.prisma with the PostgreSQL provider and a client of its own", () => {
    const derived = derivePostgresSchema(read(SQLITE_SCHEMA_PATH));
    expect(derived).toMatch(/datasource db \{\n\s+provider = "postgresql"/);
    expect(derived).toContain('output     = "../../node_modules/.prisma/postgres-client"');
    expect(derived).not.toContain('"sqlite"');
    expect(derived.replace(/^\/\/ GENERATED.*\n\/\/ Change.*\n/, "")).toContain("model ReservationGpu {");
  });

  it("is up to date with prisma/schema.prisma (else: npm run db:postgres-schema -- --migration <name>)", () => {
    const stale = `${POSTGRES_SCHEMA_PATH} is stale: prisma/schema.prisma changed. Run \`npm run db:postgres-schema -- --migration <name>\`, which writes it and the PostgreSQL migration for the change.`;
    expect(read(POSTGRES_SCHEMA_PATH) === derivePostgresSchema(read(SQLITE_SCHEMA_PATH)), stale).toBe(true);
  });

  it("has its migrations folder, marked for PostgreSQL", () => {
    expect(read(path.join(POSTGRES_MIGRATIONS_PATH, "migration_lock.toml"))).toContain('provider = "postgresql"');
  });

  it("refuses a schema it does not know how to derive", () => {
    expect(() => derivePostgresSchema('datasource db {\n  provider = "mysql"\n}\n')).toThrow(/provider = "sqlite"/);
  });
});

describe("the generated PostgreSQL client", () => {
  it("shares @prisma/client's runtime, so that Prisma.sql fragments and Prisma's errors mean the same to both clients", () => {
    const client = path.join(repoRoot, "node_modules", ".prisma", "postgres-client");
    expect(existsSync(client), "run npm install (its postinstall generates the clients)").toBe(true);
    const postgres = createRequire(import.meta.url)(client) as { Prisma: typeof Prisma };
    expect(postgres.Prisma.Sql).toBe(Prisma.Sql);
    expect(postgres.Prisma.PrismaClientKnownRequestError).toBe(Prisma.PrismaClientKnownRequestError);
  });
});
