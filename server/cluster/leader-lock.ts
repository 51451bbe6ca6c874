import type { Redis } from "ioredis";
import { log } from "@/server/core/log";

// Renew and release only while the key still names us: a leader that was
// paused past its TTL must not extend or delete the lock of its successor.
const RENEW_IF_OWNER = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE_IF_OWNER = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

export interface LeaderLockOptions {
  redis: Redis;
  key: string;
  /** This contender's id, stored as the key's value. */
  owner: string;
  /** Lifetime of the lock without renewal: a leader that dies hands over within this. */
  ttlMs: number;
  /** Called with true when this contender becomes the leader, false when it stops being it. */
  onChange: (leader: boolean) => void;
  now?: () => number;
}

/**
 * One leader at a time across the cluster, with a Redis key set with
 * `SET key owner NX PX ttl` and renewed every third of the TTL by a script
 * that checks the owner first. The leader steps down on its own when it
 * could not renew before its lease (counted from before the last successful
 * renewal was sent) is nearly over, so that it has stopped its work before
 * another contender can take the key.
 */
export class LeaderLock {
  private leader = false;
  private leaseUntil = 0;
  private loop: ReturnType<typeof setTimeout> | null = null;
  private watchdog: ReturnType<typeof setTimeout> | null = null;
  private stepping: Promise<void> = Promise.resolve();
  private stopped = false;
  private failing = false;
  private readonly now: () => number;

  constructor(private readonly options: LeaderLockOptions) {
    this.now = options.now ?? Date.now;
  }

  get isLeader(): boolean {
    return this.leader;
  }

  /** Starts contending: tries at once, then every third of the TTL. */
  start(): Promise<void> {
    this.stopped = false;
    return this.tick();
  }

  /** Stops contending; a leader steps down first, then deletes the key so that another takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.loop) clearTimeout(this.loop);
    this.loop = null;
    await this.stepping;
    const wasLeader = this.leader;
    this.setLeader(false, "stopping");
    if (!wasLeader) return;
    try {
      await this.options.redis.eval(RELEASE_IF_OWNER, 1, this.options.key, this.options.owner);
    } catch (error) {
      log.warn(`cluster: could not release the leader lock (it expires by itself): ${message(error)}`);
    }
  }

  private tick(): Promise<void> {
    this.stepping = this.step().finally(() => {
      if (this.stopped) return;
      this.loop = setTimeout(() => void this.tick(), Math.max(100, Math.floor(this.options.ttlMs / 3)));
      this.loop.unref?.();
    });
    return this.stepping;
  }

  private async step(): Promise<void> {
    const { redis, key, owner, ttlMs } = this.options;
    const sentAt = this.now();
    try {
      if (this.leader) {
        const renewed = await redis.eval(RENEW_IF_OWNER, 1, key, owner, String(ttlMs));
        if (this.stopped) return;
        if (renewed === 1) this.extendLease(sentAt);
        else this.setLeader(false, "the lock is held by another instance now");
      } else {
        const taken = await redis.set(key, owner, "PX", ttlMs, "NX");
        if (this.stopped) {
          if (taken === "OK") await redis.eval(RELEASE_IF_OWNER, 1, key, owner);
          return;
        }
        if (taken === "OK") {
          this.extendLease(sentAt);
          this.setLeader(true, "took the lock");
        }
      }
      if (this.failing) log.info("cluster: Redis answers again");
      this.failing = false;
    } catch (error) {
      // The watchdog steps down in time if this goes on; one line per spell.
      if (!this.failing) log.warn(`cluster: leader lock: ${message(error)}`);
      this.failing = true;
    }
  }

  private extendLease(sentAt: number): void {
    this.leaseUntil = sentAt + this.options.ttlMs;
    if (this.watchdog) clearTimeout(this.watchdog);
    // Step down a little before the key can expire: clocks and timers are not exact.
    const margin = Math.min(1000, Math.floor(this.options.ttlMs / 5));
    // A timer may fire a millisecond before the wall clock says it is due (timers run on a monotonic
    // clock, `now` is Date.now()): then it waits for the rest rather than never stepping down.
    const watch = () => {
      if (!this.leader) return;
      const left = this.leaseUntil - margin - this.now();
      if (left <= 0) {
        this.setLeader(false, "could not renew the lock in time");
        return;
      }
      this.watchdog = setTimeout(watch, left);
      this.watchdog.unref?.();
    };
    this.watchdog = setTimeout(watch, Math.max(0, this.leaseUntil - margin - this.now()));
    this.watchdog.unref?.();
  }

  private setLeader(leader: boolean, why: string): void {
    if (!leader && this.watchdog) {
      clearTimeout(this.watchdog);
      this.watchdog = null;
    }
    if (this.leader === leader) return;
    this.leader = leader;
    log.info(`cluster: ${this.options.owner} ${leader ? "leads" : "no longer leads"} the background jobs (${why})`);
    this.options.onChange(leader);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
