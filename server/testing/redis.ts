import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";

/** The Redis that tests use: TEST_REDIS_URL, or the one on this machine and in CI. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/**
 * Set (to 1) where Redis must be there, as in CI (.ci/run sets it): then an
 * unreachable Redis fails the run instead of skipping leader hand-over and
 * cross-instance tests.
 */
export const REDIS_REQUIRED = process.env.GPUDESK_TEST_REDIS_REQUIRED === "1";

/** True when the test Redis answers a PING within a second (tests that need it skip, visibly, otherwise). */
export async function redisReachable(url = TEST_REDIS_URL): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on("error", () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Whether this file's Redis tests can run: true when Redis answers; when it
 * does not, a visible skip — or, where Redis is required (CI), an error that
 * fails the file, so that a green run never hides them.
 */
export async function redisForTests(what: string): Promise<boolean> {
  if (await redisReachable()) return true;
  if (REDIS_REQUIRED) throw new Error(`${what} need Redis at ${TEST_REDIS_URL}, which is unreachable (GPUDESK_TEST_REDIS_REQUIRED=1)`);
  console.warn(`SKIPPED: ${what} need Redis at ${TEST_REDIS_URL} (set TEST_REDIS_URL)`);
  return false;
}

/**
 * A prefix of Redis keys and channels no other test, test run or server uses:
 * several engineers' runs share one Redis on a machine, so every key a test
 * writes carries the process id and random bytes.
 */
export function uniqueRedisPrefix(label: string): string {
  return `gpudesk-test-${label}-${process.pid}-${randomBytes(4).toString("hex")}`;
}
