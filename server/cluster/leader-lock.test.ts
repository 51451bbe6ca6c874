import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { LeaderJobs } from "@/server/cluster/leader-jobs";
import { LeaderLock } from "@/server/cluster/leader-lock";
import { redisReachable, TEST_REDIS_URL, uniqueRedisPrefix } from "@/server/testing/redis";

const TTL_MS = 1500;
const reachable = await redisReachable();
if (!reachable) console.warn(`SKIPPED: leader lock tests need Redis at ${TEST_REDIS_URL} (set TEST_REDIS_URL)`);

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function client(): Redis {
  // As the server's lock client: commands fail at once while Redis is away.
  const redis = new Redis(TEST_REDIS_URL, { enableOfflineQueue: false, commandTimeout: 500 });
  redis.on("error", () => undefined);
  cleanup.push(() => redis.disconnect());
  return redis;
}

async function ready(redis: Redis): Promise<Redis> {
  if (redis.status !== "ready") await new Promise((resolve) => redis.once("ready", resolve));
  return redis;
}

interface Contender {
  lock: LeaderLock;
  redis: Redis;
  /** Times (ms) at which it became and stopped being the leader. */
  changes: { leader: boolean; at: number }[];
}

async function contender(key: string, owner: string, onChange?: (leader: boolean) => void): Promise<Contender> {
  const redis = await ready(client());
  const changes: Contender["changes"] = [];
  const lock = new LeaderLock({
    redis,
    key,
    owner,
    ttlMs: TTL_MS,
    onChange(leader) {
      changes.push({ leader, at: Date.now() });
      onChange?.(leader);
    },
  });
  cleanup.push(() => lock.stop());
  return { lock, redis, changes };
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

describe.skipIf(!reachable)("leader lock (real Redis)", () => {
  it("lets exactly one of two contenders lead, and records it in Redis", async () => {
    const key = `${uniqueRedisPrefix("lock")}:leader`;
    const [a, b] = await Promise.all([contender(key, "a"), contender(key, "b")]);
    await Promise.all([a.lock.start(), b.lock.start()]);
    // Several renewal rounds later, still exactly one.
    await new Promise((resolve) => setTimeout(resolve, TTL_MS));
    expect([a.lock.isLeader, b.lock.isLeader].filter(Boolean)).toHaveLength(1);
    const holder = a.lock.isLeader ? "a" : "b";
    expect(await a.redis.get(key)).toBe(holder);
    const ttl = await a.redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(TTL_MS);
  });

  it("hands over within the TTL when the holder stops renewing, and the holder steps down first", async () => {
    const key = `${uniqueRedisPrefix("lock")}:leader`;
    const a = await contender(key, "a");
    await a.lock.start();
    expect(a.lock.isLeader).toBe(true);
    const b = await contender(key, "b");
    await b.lock.start();
    expect(b.lock.isLeader).toBe(false);

    // The holder loses Redis (as a dead or partitioned instance would): it can no longer renew.
    const cutAt = Date.now();
    a.redis.disconnect();
    await waitFor(() => b.lock.isLeader, TTL_MS + TTL_MS / 3 + 1000);
    const tookOverAt = b.changes.find((change) => change.leader)!.at;
    expect(tookOverAt - cutAt).toBeLessThan(TTL_MS + TTL_MS / 3 + 500);
    // No moment with two leaders: the cut-off holder gave up before its lease could run out.
    const steppedDownAt = a.changes.find((change) => !change.leader)?.at;
    expect(steppedDownAt).toBeDefined();
    expect(steppedDownAt!).toBeLessThanOrEqual(tookOverAt);
    expect(a.lock.isLeader).toBe(false);
  });

  it("stops the holder's jobs when it finds the lock taken by another", async () => {
    const key = `${uniqueRedisPrefix("lock")}:leader`;
    const jobs = new LeaderJobs();
    let running = 0;
    jobs.add({
      name: "job",
      start() {
        running += 1;
        return () => {
          running -= 1;
        };
      },
    });
    const a = await contender(key, "a", (leader) => void jobs.setLeader(leader));
    await a.lock.start();
    await jobs.settled();
    expect(running).toBe(1);
    expect(jobs.runningJobs()).toEqual(["job"]);

    // Someone else holds the key now (the holder was paused past its TTL, say).
    await a.redis.set(key, "intruder", "PX", 60_000);
    await waitFor(() => !a.lock.isLeader, TTL_MS);
    await jobs.settled();
    expect(running).toBe(0);
    expect(jobs.runningJobs()).toEqual([]);
    // It does not delete or extend the other's lock.
    expect(await a.redis.get(key)).toBe("intruder");
  });

  it("releases the lock on a clean stop, so that another takes over at once", async () => {
    const key = `${uniqueRedisPrefix("lock")}:leader`;
    const a = await contender(key, "a");
    const b = await contender(key, "b");
    await a.lock.start();
    await b.lock.start();
    expect(a.lock.isLeader).toBe(true);
    await a.lock.stop();
    expect(await b.redis.get(key)).toBeNull();
    const waited = await waitFor(() => b.lock.isLeader, TTL_MS);
    expect(waited).toBeLessThan(TTL_MS / 3 + 300);
  });
});
