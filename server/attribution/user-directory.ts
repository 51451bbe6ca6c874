import type { PersonRef } from "@/lib/domain/booking-types";
import { db } from "@/server/core/db";
import { periodicJob, type JobTimers, type PeriodicJob } from "@/server/core/jobs";
import { log } from "@/server/core/log";

export interface DirectoryEntry extends PersonRef {
  unixLogin: string;
}

/** Login ↔ person, read by attribution every tick: kept in memory, read again now and then. */
export interface PersonDirectory {
  byLogin(login: string): PersonRef | null;
  /** The Unix login of a person, if they have one (the agent protects the booker's processes by it). */
  loginOf(personId: string): string | null;
}

export function staticDirectory(entries: DirectoryEntry[]): PersonDirectory {
  const logins = new Map(entries.map((entry) => [entry.unixLogin, entry]));
  const ids = new Map(entries.map((entry) => [entry.id, entry.unixLogin]));
  return {
    byLogin: (login) => {
      const entry = logins.get(login);
      return entry ? { id: entry.id, username: entry.username, name: entry.name } : null;
    },
    loginOf: (personId) => ids.get(personId) ?? null,
  };
}

/**
 * The people with a Unix login, from the database. Read at start, every
 * `refreshMs`, and on `refresh()` (when bookings change, so that a person
 * created just before booking is known by the time their job is judged).
 */
export class UserDirectory implements PersonDirectory {
  private current: PersonDirectory = staticDirectory([]);
  private reading: Promise<void> | null = null;
  private readonly job: PeriodicJob;

  constructor(refreshMs = 30_000, timers?: JobTimers) {
    this.job = periodicJob({ name: "user directory", everyMs: refreshMs, timers, run: () => this.refresh() });
  }

  /** The first read done, then one every `refreshMs` (server/core/jobs.ts). */
  async start(): Promise<void> {
    this.job.start();
    await this.job.settled();
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  refresh(): Promise<void> {
    this.reading ??= (async () => {
      try {
        const rows = await db().user.findMany({
          where: { unixLogin: { not: null } },
          select: { id: true, username: true, name: true, unixLogin: true },
        });
        this.current = staticDirectory(
          rows.map((row) => ({ id: row.id, username: row.username ?? row.name, name: row.name, unixLogin: row.unixLogin! })),
        );
      } catch (error) {
        log.error(`could not read the people's Unix logins: ${error instanceof Error ? error.message : String(error)}`);
      }
    })().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  byLogin(login: string): PersonRef | null {
    return this.current.byLogin(login);
  }

  loginOf(personId: string): string | null {
    return this.current.loginOf(personId);
  }
}
