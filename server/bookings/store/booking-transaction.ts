import { Prisma, type PrismaClient } from "@prisma/client";
import { databaseProvider, env } from "@/server/core/env";
import { AppError } from "@/server/core/errors";
import { afterCommit, beforeCommit, type BookingChange, type BookingChangeRecord, bookingBackendsListening } from "@/server/bookings/backends/booking-backend";
import { readChanges } from "@/server/bookings/store/booked-booking";
import { announceBookingChange } from "@/server/bookings/store/booking-events";

export type Tx = Prisma.TransactionClient;

export interface WriteLock {
  /** The person whose bookings change (their "GPUs at once" limit is checked). */
  userId: string;
  /** The hosts whose GPUs may be booked. */
  hostIds: string[];
  /** The team the booking counts for (its limits are checked). */
  teamIds?: string[];
}

/**
 * Takes the write lock before the transaction reads anything.
 *
 * SQLite: the adapter (server/core/sqlite-adapter.ts) opens every
 * transaction with BEGIN IMMEDIATE, so the write lock is this
 * transaction's before it reads; these statements then change nothing.
 *
 * PostgreSQL: the same statements lock the person's row, the hosts' rows
 * and the team's row, which serializes exactly the bookings that could
 * collide (on a GPU, or on a person's or team's limit).
 */
async function takeWriteLock(tx: Tx, lock: WriteLock): Promise<void> {
  await tx.$executeRaw`UPDATE "user" SET "updatedAt" = "updatedAt" WHERE "id" = ${lock.userId}`;
  if (lock.hostIds.length > 0) {
    // In id order, so that two bookings that lock the same hosts queue instead of deadlocking.
    const hostIds = [...new Set(lock.hostIds)].sort();
    await tx.$executeRaw`UPDATE "Host" SET "updatedAt" = "updatedAt" WHERE "id" IN (${Prisma.join(hostIds)})`;
  }
  // Two members of one team booking different hosts share no row above: the team's row serializes them (its limits).
  if (lock.teamIds && lock.teamIds.length > 0) {
    await tx.$executeRaw`UPDATE "Team" SET "updatedAt" = "updatedAt" WHERE "id" IN (${Prisma.join([...new Set(lock.teamIds)].sort())})`;
  }
}

type Outcome<T> = { ok: true; value: T; records: BookingChangeRecord[]; changes: BookingChange[] } | { ok: false; error: AppError };

/** What a booking command tells its transaction: each change of a booking's life it wrote (server/bookings/backends/). */
export interface BookingChanges {
  record(change: BookingChangeRecord): void;
}

/** A backend's refusal on its way out of the transaction: not an AppError, so that Prisma rolls the writes back. */
class RolledBack extends Error {
  constructor(readonly error: unknown) {
    super("a booking backend refused the change");
  }
}

/**
 * Runs a booking change as one write transaction: lock, check, write, then
 * the booking backends.
 *
 * A refusal (an AppError thrown by `work`) commits instead of rolling back:
 * `work` must throw before it writes anything, so the commit only ends a
 * transaction that changed nothing. Each change `work` records passes
 * through the booking backends' `beforeCommit` after `work` returns, still
 * inside the transaction; a backend that refuses (or fails) rolls every
 * write back. After the commit the same changes go to `afterCommit`, and
 * each is announced once to the followers (booking-events.ts).
 */
export async function bookingTransaction<T>(client: PrismaClient, lock: WriteLock, work: (tx: Tx, changes: BookingChanges) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const outcome: Outcome<T> = await client.$transaction(
        async (tx) => {
          await takeWriteLock(tx, lock);
          const records: BookingChangeRecord[] = [];
          let value: T;
          try {
            value = await work(tx, { record: (change) => records.push(change) });
          } catch (error) {
            if (error instanceof AppError) return { ok: false, error };
            throw error;
          }
          // Without a backend, nothing is read for them: the local calendar is these tables.
          if (records.length === 0 || !bookingBackendsListening()) return { ok: true, value, records, changes: [] };
          const changes = await readChanges(tx, records);
          try {
            await beforeCommit(changes, tx);
          } catch (error) {
            throw new RolledBack(error);
          }
          return { ok: true, value, records, changes };
        },
        // Many requests at once queue (SQLite: for the adapter's one connection; PostgreSQL:
        // for the host's row lock, inside their transactions): give them time.
        { maxWait: 15_000, timeout: transactionTimeoutMs() },
      );
      if (!outcome.ok) throw outcome.error;
      if (outcome.changes.length > 0) await afterCommit(outcome.changes);
      // Each change announced once, here and nowhere else, after the commit: every follower hears it (booking-events.ts).
      for (const record of outcome.records) announceBookingChange(record);
      return outcome.value;
    } catch (error) {
      if (error instanceof RolledBack) throw error.error;
      if (attempt >= BUSY_ATTEMPTS || !isDatabaseBusy(error)) throw error;
      // The transaction was rolled back whole; try again after a random pause so that the racers spread out.
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 100 * attempt));
    }
  }
}

const BUSY_ATTEMPTS = 5;

/**
 * How long a booking transaction may last, waiting included. On PostgreSQL
 * each booking of a host waits for that host's row lock inside its own
 * transaction, behind every booking of the host that came before it: a
 * burst of N waits N bookings' time. SQLite's waiters queue before their
 * transactions start (maxWait), and a stuck one there holds the whole
 * database, so it keeps the short limit.
 */
function transactionTimeoutMs(): number {
  return databaseProvider(env().DATABASE_URL) === "postgresql" ? 60_000 : 15_000;
}

/**
 * Driver error codes after which the whole transaction may simply run again:
 *
 * - PostgreSQL chose this transaction as a deadlock victim (40P01) or could
 *   not serialize it (40001). The row locks are taken in one order (person,
 *   then hosts by id), so bookings queue rather than deadlock; other writers
 *   of those rows (an admin editing a person while they book) could still
 *   cross, and PostgreSQL then ends one of them.
 * - PostgreSQL's exclusion constraint on ReservationGpu (23P01) refused an
 *   overlapping booking that the checks let through. The locks should make
 *   that impossible; should it happen anyway, the next attempt sees the
 *   other booking and refuses with a proper conflict message.
 *
 * Retrying is safe: the failed transaction was rolled back whole. SQLite's
 * "database is locked" is not among them: the adapter has already waited
 * for the write lock as long as a request may wait (and the answer is then
 * 503 database_busy).
 */
const RETRYABLE = new Set(["40P01", "40001", "23P01"]);

function isDatabaseBusy(error: unknown): boolean {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  // Prisma's own code for a write conflict or deadlock, where the adapter maps it.
  if (error.code === "P2034") return true;
  const cause = (error.meta?.driverAdapterError as { cause?: { originalCode?: string } } | undefined)?.cause;
  return cause?.originalCode !== undefined && RETRYABLE.has(cause.originalCode);
}
