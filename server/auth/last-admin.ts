import { Prisma } from "@prisma/client";
import { databaseProvider, env } from "@/server/core/env";

/** Key of the PostgreSQL advisory lock that makes changes taking away an admin take turns (any fixed number; "gpda"). */
const ADMINS_LOCK_KEY = 0x67706461;

/**
 * Inside a transaction that may take away an admin (a demotion, a disabled
 * account, a directory's group change), before it reads how many admins
 * remain: such transactions take turns, so that two admins demoting each
 * other at once leave one admin, not none. On PostgreSQL a transaction-scoped
 * advisory lock (both would otherwise count the other as still admin); on
 * SQLite the transaction's first statement writes, which takes the
 * database's write lock and waits for the other's commit.
 */
export async function lockAdminChanges(tx: Prisma.TransactionClient): Promise<void> {
  if (databaseProvider(env().DATABASE_URL) === "postgresql") await tx.$executeRaw`SELECT pg_advisory_xact_lock(${Prisma.raw(String(ADMINS_LOCK_KEY))})`;
  else await tx.$executeRaw`UPDATE "user" SET "role" = "role" WHERE 1 = 0`;
}

/** Active admins other than `userId`, read inside the transaction after lockAdminChanges. */
export function otherActiveAdmins(tx: Prisma.TransactionClient, userId: string): Promise<number> {
  return tx.user.count({ where: { role: "admin", id: { not: userId }, OR: [{ banned: false }, { banned: null }] } });
}
