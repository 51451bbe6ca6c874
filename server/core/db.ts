import { createRequire } from "node:module";
import { PrismaClient } from "@prisma/client";
import type * as PostgresClientModule from ".prisma/postgres-client";
import type * as PostgresAdapterModule from "@prisma/adapter-pg";
import { SqliteAdapterFactory } from "@/server/core/sqlite-adapter";
import { databaseProvider, env } from "@/server/core/env";
import { resolveSqlitePath } from "@/server/core/sqlite-path";

/**
 * The client generated from prisma/postgres/schema.prisma (the same models,
 * derived; see server/core/postgres-schema.ts) and its driver adapter, loaded
 * only when the database is PostgreSQL: a SQLite server never loads pg. The
 * client lives where Prisma puts its default client, node_modules/.prisma/,
 * which npm leaves alone when it prunes; that is no valid package name for an
 * ESM import, so both are loaded with require, as @prisma/client loads its own.
 */
function loadPostgres(): { PrismaClient: typeof PostgresClientModule.PrismaClient; PrismaPg: typeof PostgresAdapterModule.PrismaPg } {
  const require = createRequire(import.meta.url);
  return {
    PrismaClient: (require(".prisma/postgres-client") as typeof PostgresClientModule).PrismaClient,
    PrismaPg: (require("@prisma/adapter-pg") as typeof PostgresAdapterModule).PrismaPg,
  };
}

// One client per process, shared by the custom server and Next's bundles
// (which load their own copies of this module).
const globalForDb = globalThis as unknown as { __gpudeskDb?: PrismaClient };

/** Connections each process keeps to PostgreSQL (a booking holds one for its transaction). */
const POSTGRES_POOL_SIZE = 10;

function createClient(databaseUrl: string): PrismaClient {
  if (databaseProvider(databaseUrl) === "postgresql") {
    const { PrismaClient: PostgresPrismaClient, PrismaPg } = loadPostgres();
    const adapter = new PrismaPg({ connectionString: databaseUrl, max: POSTGRES_POOL_SIZE, application_name: "gpudesk" });
    // The PostgreSQL client is generated from the same models, so its API is
    // the SQLite client's; the two are distinct TypeScript types only because
    // each generated client declares its own. The rest of gpudesk is written
    // against one type: this is the one place that says they are the same.
    return new PostgresPrismaClient({ adapter }) as unknown as PrismaClient;
  }
  // WAL, short busy waits off the event loop, whole transactions: see server/core/sqlite-adapter.ts.
  const adapter = new SqliteAdapterFactory(resolveSqlitePath(databaseUrl));
  return new PrismaClient({ adapter });
}

export function db(): PrismaClient {
  globalForDb.__gpudeskDb ??= createClient(env().DATABASE_URL);
  return globalForDb.__gpudeskDb;
}

export async function disconnectDb(): Promise<void> {
  await globalForDb.__gpudeskDb?.$disconnect();
  globalForDb.__gpudeskDb = undefined;
}
