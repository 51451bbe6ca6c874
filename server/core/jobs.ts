import { log } from "@/server/core/log";

/** A periodic job's timers; a test passes its own clock (server/testing/manual-timers.ts). */
export interface JobTimers {
  every(callback: () => void, ms: number): { cancel(): void };
  once(callback: () => void, ms: number): { cancel(): void };
}

// A job never keeps the process alive: the server's own handles do.
const realTimers: JobTimers = {
  every(callback, ms) {
    const timer = setInterval(callback, ms);
    timer.unref?.();
    return { cancel: () => clearInterval(timer) };
  },
  once(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref?.();
    return { cancel: () => clearTimeout(timer) };
  },
};

export interface PeriodicJobOptions {
  /** For the log: "idle release", "mail deliveries". */
  name: string;
  /** How often a pass runs without being poked. */
  everyMs: number;
  /**
   * One pass. Runs one at a time; a poke while it runs makes one more pass
   * after it. `signal` is aborted when the job stops: a long pass (pruning
   * in batches) ends between two steps instead of holding up the shutdown.
   */
  run: (signal: AbortSignal) => Promise<void>;
  /** The first pass this long after start rather than at once (not competing with start-up work). */
  firstAfterMs?: number;
  timers?: JobTimers;
}

export interface PeriodicJob {
  /** Starts the job (a first pass at once, or after `firstAfterMs`); answers how to stop it (aborts the pass under way and waits for it). */
  start(): () => Promise<void>;
  /** The same as the function `start` answered, for an owner that keeps the job rather than that function; nothing while stopped. */
  stop(): Promise<void>;
  /** A pass soon (something changed); nothing while the job is stopped. */
  poke(): void;
  /** The pass running now, if any (tests wait for it). */
  settled(): Promise<void>;
}

/**
 * gpudesk's one way to run something over and over beside the tick: a pass
 * every `everyMs` and on `poke()`, never two at once, a poke during a pass
 * answered by one more pass, a failure logged once until a pass succeeds
 * again (a database that is down does not fill the log), and stop waiting
 * for the pass under way (its signal aborted). Whether a job runs on every
 * instance or on the leader only is its registration's business: a
 * leader-only job is started and stopped by the cluster's leader jobs
 * (`cluster.jobs.add`, server/cluster/leader-jobs.ts), every other one by
 * its owner. docs/development.md lists them all.
 */
export function periodicJob(options: PeriodicJobOptions): PeriodicJob {
  const timers = options.timers ?? realTimers;
  let running: Promise<void> | null = null;
  let again = false;
  let started = false;
  let failing = false;
  let beats: { cancel(): void }[] = [];
  let aborter = new AbortController();

  const poke = (): void => {
    if (!started) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await options.run(aborter.signal);
          failing = false;
        } catch (error) {
          if (!failing) log.error(`${options.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          failing = true;
        }
      } while (again && started);
    })().finally(() => {
      running = null;
    });
  };

  const stop = async (): Promise<void> => {
    started = false;
    for (const timer of beats) timer.cancel();
    beats = [];
    aborter.abort();
    await running;
  };

  return {
    start() {
      started = true;
      aborter = new AbortController();
      beats = [timers.every(poke, options.everyMs)];
      if (options.firstAfterMs === undefined) poke();
      else beats.push(timers.once(poke, options.firstAfterMs));
      return stop;
    },
    stop,
    poke,
    settled: async () => {
      await running;
    },
  };
}
