import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";

/** The Redis that tests use: TEST_REDIS_URL, or the one on this machine and in CI. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

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

/** A prefix of Redis keys and channels no other test or server uses. */
export function uniqueRedisPrefix(label: string): string {
  return `gpudesk-test-${label}-${randomBytes(4).toString("hex")}`;
}
