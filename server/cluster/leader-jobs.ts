import { log } from "@/server/core/log";

/** Work that must run on one instance only: started when this instance leads, stopped when it no longer does. */
export interface LeaderJob {
  name: string;
  /** Starts the job; resolves to the function that stops it (and waits for its writes in flight). */
  start: () => Promise<() => Promise<void> | void> | (() => Promise<void> | void);
}

/**
 * The background jobs of the cluster's leader. Leadership changes are
 * applied in order, one at a time: a job is never started twice, and a
 * loss of leadership waits for the jobs to stop before a new term starts.
 */
export class LeaderJobs {
  private readonly jobs: LeaderJob[] = [];
  private readonly running = new Map<string, () => Promise<void> | void>();
  private leader = false;
  private queue: Promise<void> = Promise.resolve();

  /** Adds a job; it starts at once when this instance leads already. */
  add(job: LeaderJob): void {
    this.jobs.push(job);
    if (this.leader) this.queue = this.queue.then(() => this.startOne(job));
  }

  /** Applies a change of leadership; resolves when the jobs have started or stopped. */
  setLeader(leader: boolean): Promise<void> {
    if (leader === this.leader) return this.queue;
    this.leader = leader;
    this.queue = this.queue.then(() => (leader ? this.startAll() : this.stopAll()));
    return this.queue;
  }

  get isLeader(): boolean {
    return this.leader;
  }

  /** The names of the jobs running here now. */
  runningJobs(): string[] {
    return [...this.running.keys()];
  }

  /** Waits for the changes so far (tests, shutdown). */
  settled(): Promise<void> {
    return this.queue;
  }

  private async startAll(): Promise<void> {
    for (const job of this.jobs) {
      if (!this.leader) return;
      await this.startOne(job);
    }
  }

  private async startOne(job: LeaderJob): Promise<void> {
    if (this.running.has(job.name)) return;
    try {
      this.running.set(job.name, await job.start());
    } catch (error) {
      log.error(`could not start ${job.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async stopAll(): Promise<void> {
    // The reverse order of starting: later jobs may use earlier ones.
    for (const [name, stop] of [...this.running].reverse()) {
      try {
        await stop();
      } catch (error) {
        log.error(`could not stop ${name}: ${error instanceof Error ? error.message : String(error)}`);
      }
      this.running.delete(name);
    }
  }
}
