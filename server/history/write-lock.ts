import { Prisma } from "@prisma/client";
import { sqlDialect } from "@/server/core/sql-dialect";
import type { Client } from "@/server/minutes/minute-store";

/** Key of the PostgreSQL advisory lock that serializes rollup writes across instances (any fixed number; "gpdr"). */
const ROLLUP_LOCK_KEY = 0x67706472;

/**
 * Takes the database's write lock at the start of a transaction that reads
 * before it writes. Prisma opens SQLite transactions deferred: one that has
 * read and then wants to write while another process writes fails at once
 * with SQLITE_BUSY instead of waiting (SQLite's deadlock rule), whereas a
 * transaction whose first statement writes waits its turn. A DELETE of no
 * rows is such a statement. PostgreSQL runs such transactions side by side,
 * so there a transaction-scoped advisory lock makes the rollup writes of
 * several instances take turns: an hour is recomputed from its minutes, and
 * two instances recomputing the same GPU-hour at once (an agent that moved
 * between them) would each miss the other's uncommitted minutes.
 */
export async function claimWriteLock(client: Client): Promise<void> {
  // executeRaw: the lock function returns void, a column type there is no need to read back.
  if (sqlDialect() === "postgresql") await client.$executeRaw`SELECT pg_advisory_xact_lock(${Prisma.raw(String(ROLLUP_LOCK_KEY))})`;
  else await client.$executeRaw`DELETE FROM "GpuHour" WHERE 1 = 0`;
}
