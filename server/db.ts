import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "@prisma/client";
import { env } from "@/server/env";
import { resolveSqlitePath } from "@/server/sqlite-path";

// One client per process, shared by the custom server and Next's bundles
// (which load their own copies of this module).
const globalForDb = globalThis as unknown as { __gpudeskDb?: PrismaClient };

export function db(): PrismaClient {
  if (!globalForDb.__gpudeskDb) {
    // Writers in other processes (a CLI command, a second server) hold SQLite's write
    // lock only briefly, but under contention SQLite's sleeping retries can leave one
    // waiter behind for longer than the default 5 s; it then fails with "database is locked".
    const adapter = new PrismaBetterSQLite3({ url: resolveSqlitePath(env().DATABASE_URL), timeout: 15_000 });
    globalForDb.__gpudeskDb = new PrismaClient({ adapter });
  }
  return globalForDb.__gpudeskDb;
}

export async function disconnectDb(): Promise<void> {
  await globalForDb.__gpudeskDb?.$disconnect();
  globalForDb.__gpudeskDb = undefined;
}
