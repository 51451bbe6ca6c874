import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

// The Prisma CLI's configuration for the PostgreSQL schema, which is derived
// from prisma/schema.prisma (scripts/postgres-schema.ts). It serves
// `prisma generate` and `prisma migrate diff`, both offline. gpudesk applies
// the PostgreSQL migrations itself (server/db/migrate-postgres.ts): Prisma's
// migrate deploy fails through the pg adapter (see ARCHITECTURE.md).
// Paths are relative to this file.

// The schema's `url = env("DATABASE_URL")` must look like a PostgreSQL URL, or
// the CLI cannot read the schema and tries to download a query engine.
if (!/^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? "")) process.env.DATABASE_URL = "postgresql://localhost:5432/gpudesk";
const databaseUrl = process.env.DATABASE_URL;

export default defineConfig({
  schema: "schema.prisma",
  migrations: { path: "../migrations-postgres" },
  engine: "js",
  experimental: { adapter: true },
  adapter: async () => new PrismaPg({ connectionString: databaseUrl }),
});
