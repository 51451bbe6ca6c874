import type { Prisma, PrismaClient } from "@prisma/client";
import { db } from "@/server/core/db";

type Tx = Prisma.TransactionClient;

/**
 * A write that a count limits (a person's personal webhooks, their test
 * messages a minute, their waiting requests): the count and the write in
 * one transaction that first locks the person, so that parallel requests
 * take turns and the limit holds exactly.
 *
 * PostgreSQL: reading the count inside a READ COMMITTED transaction is not
 * enough (two transactions both count 9 and both insert the 10th), so the
 * first statement locks the person's row, as a booking does
 * (server/core/booking-transaction.ts); the next one waits for the commit
 * and then counts what it wrote. SQLite: the adapter opens every
 * transaction with BEGIN IMMEDIATE, so the writer lock is the
 * transaction's before it counts and this statement changes nothing.
 *
 * `work` counts, refuses (throws) or writes through `tx` only.
 */
export async function countedWrite<T>(ownerId: string, work: (tx: Tx) => Promise<T>, client: PrismaClient = db()): Promise<T> {
  return client.$transaction(
    async (tx) => {
      await lockPerson(tx, ownerId);
      return work(tx);
    },
    // A burst of one person's requests queues on the lock, each holding its connection: give them time.
    { maxWait: 15_000, timeout: 15_000 },
  );
}

/**
 * Locks the person's row until the transaction ends (PostgreSQL; on SQLite
 * the transaction already holds the writer lock): the first statement of a
 * transaction that counts what the person has and then writes.
 */
export async function lockPerson(tx: Tx, userId: string): Promise<void> {
  await tx.$executeRaw`UPDATE "user" SET "updatedAt" = "updatedAt" WHERE "id" = ${userId}`;
}
