import { db } from "@/server/db";

/** Failed sign-ins allowed per username before each further attempt waits. */
const FREE_FAILURES = 5;
const BASE_DELAY_MS = 2_000;
const MAX_DELAY_MS = 15 * 60_000;
/** Failures older than this no longer count. */
const FORGET_AFTER_MS = 60 * 60_000;

function keyFor(username: string): string {
  return `login-user:${username.trim().toLowerCase().slice(0, 64)}`;
}

/**
 * Slows down guessing one person's password from many addresses: after a
 * few failures, each further attempt for that username must wait, doubling
 * up to 15 minutes. Kept in the database, so a restart does not reset it.
 * Answers how long to wait (0: go ahead). Works the same for unknown
 * usernames, so the answer tells nothing about who exists.
 */
export async function checkLoginAllowed(username: string, now = Date.now()): Promise<number> {
  const row = await db().rateLimit.findUnique({ where: { key: keyFor(username) } });
  if (!row) return 0;
  const last = Number(row.lastRequest);
  if (now - last > FORGET_AFTER_MS) return 0;
  if (row.count < FREE_FAILURES) return 0;
  const delay = Math.min(BASE_DELAY_MS * 2 ** (row.count - FREE_FAILURES), MAX_DELAY_MS);
  return Math.max(0, last + delay - now);
}

export async function recordLoginResult(username: string, succeeded: boolean, now = Date.now()): Promise<void> {
  const key = keyFor(username);
  if (succeeded) {
    await db().rateLimit.deleteMany({ where: { key } });
    return;
  }
  const row = await db().rateLimit.findUnique({ where: { key } });
  const stale = row && now - Number(row.lastRequest) > FORGET_AFTER_MS;
  await db().rateLimit.upsert({
    where: { key },
    create: { id: key, key, count: 1, lastRequest: BigInt(now) },
    update: { count: stale ? 1 : { increment: 1 }, lastRequest: BigInt(now) },
  });
}
