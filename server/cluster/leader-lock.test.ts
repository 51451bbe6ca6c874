import { Redis } from "ioredis";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LeaderJobs } from "@/server/cluster/leader-jobs";
import { LeaderLock } from "@/server/cluster/leader-lock";
import { redisForTests, TEST_REDIS_URL, uniqueRedisPrefix } from "@/server/testing/redis";

// The leader steps down min(1 s, TTL/5) before its lease ends: a margin that a loaded 2-core CI machine's late timers must not eat.
const TTL_MS = 5000;
const reachable = await redisForTests("leader lock tests");

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

/**
 * Polls until the check holds. The deadline only bounds a hung test: on a
 * loaded machine timers run late, so no assertion here rests on how fast
 * something happened, only on what happened and in which order.
 */
async function waitFor(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Counts a contender's attempts (SET NX to take, the script to renew) and what each answered. */
function attempts(redis: Redis): { taken: (string | null)[]; count: () => number } {
  const taken: (string | null)[] = [];
  let renewals = 0;
  const set = redis.set.bind(redis) as (...args: unknown[]) => Promise<string | null>;
  vi.spyOn(redis, "set").mockImplementation(((...args: unknown[]) =>
    set(...args).then((answer) => {
      taken.push(answer);
      return answer;
    })) as never);
  const evaluate = redis.eval.bind(redis) as (...args: unknown[]) => Promise<unknown>;
  vi.spyOn(redis, "eval").mockImplementation(((...args: unknown[]) =>
    evaluate(...args).finally(() => {
      renewals += 1;
    })) as never);
  return { taken, count: () => taken.length + renewals };
}

describe.skipIf(!reachable)("leader lock (real Redis)", () => {
  it("lets exactly one of two contenders lead, and records it in Redis", async () => {
    const key = `${uniqueRedisPrefix("lock")}:leader`;
    const [a, b] = await Promise.all([contender(key, "a"), contender(key, "b")]);
    const [seenA, seenB] = [attempts(a.redis), attempts(b.redis)];
    await Promise.all([a.lock.start(), b.lock.start()]);
    // Several rounds of both later (counted, not slept for), still exactly one.
    await waitFor(() => seenA.count() >= 4 && seenB.count() >= 4);
    expect([a.lock.isLeader, b.lock.isLeader].filter(Boolean)).toHaveLength(1);
    const leader = a.lock.isLeader ? "a" : "b";
    expect(await a.redis.get(key)).toBe(leader);
    const ttl = await a.redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(TTL_MS);
  });

  it("hands over within the TTL when the leader stops renewing, and the leader steps down first", async () => {
    const key = `${uniqueRedisPrefix("lock")}:leader`;
    const a = await contender(key, "a");
    await a.lock.start();
    expect(a.lock.isLeader).toBe(true);
    const b = await contender(key, "b");
    await b.lock.start();
    expect(b.lock.isLeader).toBe(false);

    // The leader loses Redis (as a dead or partitioned instance would): it can no longer renew.
    a.redis.disconnect();
    // The other takes over once the key has expired (Redis times that, not this test).
    await waitFor(() => b.lock.isLeader);
    const tookOverAt = b.changes.find((change) => change.leader)!.at;
    expect(await b.redis.get(key)).toBe("b");
    // No moment with two leaders: the cut-off leader gave up before its lease could run out.
    const steppedDownAt = a.changes.find((change) => !change.leader)?.at;
    expect(steppedDownAt).toBeDefined();
    expect(steppedDownAt!).toBeLessThanOrEqual(tookOverAt);
    expect(a.lock.isLeader).toBe(false);
  });

  it("stops the leader's jobs when it finds the lock taken by another", async () => {
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

    // Someone else holds the key now (the leader was paused past its TTL, say).
    await a.redis.set(key, "intruder", "PX", 60_000);
    await waitFor(() => !a.lock.isLeader);
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
    const seenB = attempts(b.redis);
    await a.lock.stop();
    expect(await b.redis.get(key)).toBeNull();
    const triedBefore = seenB.taken.length;
    await waitFor(() => b.lock.isLeader);
    // "At once": the first attempt after the stop takes the lock, instead of
    // failing until the stopped leader's lease runs out.
    expect(seenB.taken.slice(triedBefore)).toEqual(["OK"]);
  });
});
