import { log } from "@/server/core/log";
import { SlurmClient, SlurmUnreachable, type SlurmSettings, type SlurmVersion } from "@/server/slurm/slurm-client";
import type { SlurmJob, SlurmReservation } from "@/server/slurm/slurm-model";
import { EMPTY_SLURM_CALENDAR } from "@/server/slurm/slurm-calendar";
import type { SlurmCalendar } from "@/lib/domain/slurm";

/** The cluster as gpudesk last saw it: /api/health, Admin → Hosts and the booking checks read this. */
export interface SlurmClusterState {
  url: string;
  /** "up": slurmrestd answered the last call; "down": it did not (the reason in `message`). */
  state: "up" | "down";
  message: string | null;
  version: SlurmVersion | null;
  /** Slurm's NodeNames, from the last answer (kept while Slurm is down: a booking there is refused, not booked only in gpudesk). */
  nodes: string[];
  /** When Slurm last answered; ISO. */
  checkedAt: string | null;
}

/**
 * The one connection to Slurm of this process: the client, the cluster's state
 * and the last jobs and reservations read (one list call each per pass). Hangs
 * off globalThis: the routes' bundles and the custom server must see one.
 */
export class SlurmConnection {
  readonly client: SlurmClient;
  private current: SlurmClusterState;
  jobs: SlurmJob[] = [];
  reservations: SlurmReservation[] = [];
  /** Slurm's jobs and foreign reservations on gpudesk's units, built from the last lists (server/hosts/slurm-calendar-hosts.ts). */
  calendar: SlurmCalendar = EMPTY_SLURM_CALENDAR;
  /** When the lists were last read (ms; 0: never). */
  refreshedAt = 0;

  constructor(settings: SlurmSettings, now: () => number = Date.now) {
    this.client = new SlurmClient(settings, now);
    this.current = { url: settings.url, state: "down", message: "not asked yet", version: null, nodes: [], checkedAt: null };
  }

  get status(): SlurmClusterState {
    return this.current;
  }

  /** Asks for the version (once), the node list, the jobs and the reservations; marks Slurm down on failure (and rethrows). */
  async refresh(): Promise<void> {
    try {
      const version = this.current.version ?? (await this.client.connect());
      const [nodes, jobs, reservations] = await Promise.all([this.client.listNodes(), this.client.listJobs(), this.client.listReservations()]);
      this.jobs = jobs;
      this.reservations = reservations;
      this.refreshedAt = Date.now();
      const wasDown = this.current.state === "down" && this.current.checkedAt !== null;
      this.current = { ...this.current, state: "up", message: null, version, nodes, checkedAt: new Date().toISOString() };
      if (wasDown) log.info(`Slurm at ${this.current.url} answers again`);
    } catch (error) {
      this.markDown(error);
      throw error;
    }
  }

  /** A call failed because slurmrestd did not answer: the fleet says so until the next answer. */
  markDown(error: unknown): void {
    if (!(error instanceof SlurmUnreachable)) return;
    if (this.current.state === "up") log.warn(error.message);
    this.current = { ...this.current, state: "down", message: error.message };
  }

  /** Slurm's node name of a host (its mapping, else its own name), or null when it is no Slurm node. */
  nodeOf(host: { name: string; slurmNode: string | null }): string | null {
    if (host.slurmNode) return host.slurmNode;
    return this.current.nodes.includes(host.name) ? host.name : null;
  }
}

const shared = globalThis as unknown as { __gpudeskSlurm?: SlurmConnection | null };

/** This process's connection to Slurm; null without GPUDESK_SLURM_URL. */
export function slurmConnection(): SlurmConnection | null {
  return shared.__gpudeskSlurm ?? null;
}

/** Set at start (server/index.ts) or by a test; null takes it away. */
export function setSlurmConnection(connection: SlurmConnection | null): void {
  shared.__gpudeskSlurm = connection;
}
