import { Prisma } from "@prisma/client";

/** The database refused a row whose unique column (a name, a login) another row already holds. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

/**
 * Runs a create whose name was checked unused a moment before: a parallel
 * request that took the name in between makes the database refuse it, and
 * that is answered as the check answers (`taken()`, a 409), not as a 500.
 */
export async function createUnlessTaken<T>(create: () => Promise<T>, taken: () => Error): Promise<T> {
  try {
    return await create();
  } catch (error) {
    if (isUniqueViolation(error)) throw taken();
    throw error;
  }
}
