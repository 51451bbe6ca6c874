import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "@prisma/client";
import { env } from "@/server/env";
import { resolveSqlitePath } from "@/server/sqlite-path";

// One client per process, shared by the custom server and Next's bundles
// (which load their own copies of this module).
const globalForDb = globalThis as unknown as { __gpudeskDb?: PrismaClient };

export function db(): PrismaClient {
  if (!globalForDb.__gpudeskDb) {
    const adapter = new PrismaBetterSQLite3({ url: resolveSqlitePath(env().DATABASE_URL) });
    globalForDb.__gpudeskDb = new PrismaClient({ adapter });
  }
  return globalForDb.__gpudeskDb;
}

export async function disconnectDb(): Promise<void> {
  await globalForDb.__gpudeskDb?.$disconnect();
  globalForDb.__gpudeskDb = undefined;
}
