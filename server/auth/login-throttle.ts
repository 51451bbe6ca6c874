import { Prisma } from "@prisma/client";
import { normalizeUsername } from "@/lib/domain/username";
import { db } from "@/server/core/db";

/** Sign-in attempts allowed per username before each further attempt waits. */
const FREE_ATTEMPTS = 5;
const BASE_DELAY_MS = 2_000;
const MAX_DELAY_MS = 15 * 60_000;
/** Attempts older than this no longer count. */
const FORGET_AFTER_MS = 60 * 60_000;
/** Claims lost to a parallel attempt before this one gives up (and is refused, as a throttled one is). */
const MAX_CLAIM_ROUNDS = 64;

/** Every spelling that names one person (see normalizeUsername) counts against one key. */
function keyFor(username: string): string {
  return `login-user:${normalizeUsername(username).slice(0, 64)}`;
}

/** How long an attempt must still wait after `count` counted attempts, the last at `last` (0: go ahead). */
function waitAfter(count: number, last: number, now: number): number {
  if (now - last > FORGET_AFTER_MS || count < FREE_ATTEMPTS) return 0;
  const delay = Math.min(BASE_DELAY_MS * 2 ** (count - FREE_ATTEMPTS), MAX_DELAY_MS);
  return Math.max(0, last + delay - now);
}

/** The counter as one attempt's claim left it: a success clears the count only while it still reads so. */
export type LoginClaim = { key: string; count: number; lastRequest: bigint };

/**
 * Slows down guessing one person's password from many addresses: after a
 * few attempts, each further attempt for that username must wait, doubling
 * up to 15 minutes. The attempt is counted before the password is checked,
 * by a compare-and-set on the counter's row: of many parallel guesses, each
 * claims one count, so no more than the allowed number are ever evaluated
 * (reading the count and writing it after the check let 30 parallel
 * guesses through at once). A refused attempt is not counted (it would lock
 * the person out for longer with each of the attacker's tries); a
 * successful sign-in clears the count (`clearLoginCount`). Kept in the
 * database, so a restart does not reset it. Answers how long to wait (0:
 * this attempt is counted and may go ahead). The same for unknown usernames,
 * so the answer tells nothing about who exists. With the wait, the claim
 * a successful sign-in hands to `clearLoginCount` (null when refused).
 */
export async function claimLogin(username: string, now = Date.now()): Promise<{ wait: number; claim: LoginClaim | null }> {
  const key = keyFor(username);
  for (let round = 0; round < MAX_CLAIM_ROUNDS; round += 1) {
    const row = await db().rateLimit.findUnique({ where: { key }, select: { count: true, lastRequest: true } });
    if (!row) {
      try {
        await db().rateLimit.create({ data: { id: key, key, count: 1, lastRequest: BigInt(now) } });
        return { wait: 0, claim: { key, count: 1, lastRequest: BigInt(now) } };
      } catch (error) {
        // A parallel attempt created it first: count against its row.
        if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") continue;
        throw error;
      }
    }
    const last = Number(row.lastRequest);
    const wait = waitAfter(row.count, last, now);
    if (wait > 0) return { wait, claim: null };
    const stale = now - last > FORGET_AFTER_MS;
    const count = stale ? 1 : row.count + 1;
    const claimed = await db().rateLimit.updateMany({
      where: { key, count: row.count, lastRequest: row.lastRequest },
      data: { count, lastRequest: BigInt(now) },
    });
    if (claimed.count === 1) return { wait: 0, claim: { key, count, lastRequest: BigInt(now) } };
  }
  return { wait: BASE_DELAY_MS, claim: null };
}

/**
 * After a successful sign-in: clears the count, but only while it is as
 * this attempt's claim left it. Attempts claimed since (parallel guesses
 * of someone else) stay counted; deleting the row under them let every
 * guess still waiting claim a fresh count, so a burst with the right
 * password in it had more than the free attempts evaluated. A failure was
 * already counted when it was claimed.
 */
export async function clearLoginCount(claim: LoginClaim | null): Promise<void> {
  if (claim) await db().rateLimit.deleteMany({ where: { key: claim.key, count: claim.count, lastRequest: claim.lastRequest } });
}
