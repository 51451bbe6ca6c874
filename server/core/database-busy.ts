import { Prisma } from "@prisma/client";
import { AppError } from "@/server/core/errors";

/**
 * Prisma's codes for "the database did not answer in time": a statement
 * that kept meeting another process's write lock (P1008, SQLite's BUSY past
 * the adapter's deadline), a transaction that could not start in time
 * (P2028 "Unable to start a transaction"), a pool with no free connection
 * (P2024, PostgreSQL). Nothing was written; the caller may try again.
 */
const TIMEOUT_CODES = new Set(["P1008", "P2024"]);

export function isDatabaseTimeout(error: unknown): boolean {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  if (TIMEOUT_CODES.has(error.code)) return true;
  return error.code === "P2028" && /unable to start a transaction/i.test(error.message);
}

/** How long a client is told to wait before trying again (Retry-After). */
export const DATABASE_BUSY_RETRY_SECONDS = 2;

export function databaseBusyError(): AppError {
  return new AppError("database_busy", "The database is busy (another program holds it); nothing was saved, try again in a moment");
}
