import { log } from "@/server/core/log";

/** A periodic job's timers; a test passes its own clock. */
export interface JobTimers {
  every(callback: () => void, ms: number): { cancel(): void };
}

const realTimers: JobTimers = {
  every(callback, ms) {
    const timer = setInterval(callback, ms);
    // A job never keeps the process alive: the server's own handles do.
    timer.unref?.();
    return { cancel: () => clearInterval(timer) };
  },
};

export interface PeriodicJobOptions {
  /** For the log: "idle release", "mail deliveries". */
  name: string;
  /** How often a pass runs without being poked. */
  everyMs: number;
  /** One pass. Runs one at a time; a poke while it runs makes one more pass after it. */
  run: () => Promise<void>;
  timers?: JobTimers;
}

export interface PeriodicJob {
  /** Starts the job (a first pass at once); answers how to stop it. */
  start(): () => Promise<void>;
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
 * for the pass under way. Whether a job runs on every instance or on the
 * leader only is its registration's business (server/cluster/ jobs).
 */
export function periodicJob(options: PeriodicJobOptions): PeriodicJob {
  const timers = options.timers ?? realTimers;
  let running: Promise<void> | null = null;
  let again = false;
  let started = false;
  let failing = false;
  let ticker: { cancel(): void } | null = null;

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
          await options.run();
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

  return {
    start() {
      started = true;
      ticker = timers.every(poke, options.everyMs);
      poke();
      return async () => {
        started = false;
        ticker?.cancel();
        ticker = null;
        await running;
      };
    },
    poke,
    settled: async () => {
      await running;
    },
  };
}
