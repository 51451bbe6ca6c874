import { mkdirSync } from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { defineConfig } from "prisma/config";
import { resolveSqlitePath } from "./server/core/sqlite-path";

// The Prisma CLI runs without downloading engines: migrations go through the
// WebAssembly schema engine and the driver adapter (see ARCHITECTURE.md).
process.env.DATABASE_URL ??= "file:./data/gpudesk.db";
const databaseUrl = process.env.DATABASE_URL;
// The CLI connects even for a schema-only diff; a missing folder gives an opaque error.
mkdirSync(path.dirname(resolveSqlitePath(databaseUrl)), { recursive: true });

export default defineConfig({
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  engine: "js",
  experimental: { adapter: true },
  adapter: async () => new PrismaBetterSQLite3({ url: resolveSqlitePath(databaseUrl) }),
});
