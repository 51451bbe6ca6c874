import { log } from "@/server/core/log";
import { SlurmClient, SlurmError, SlurmUnreachable, SlurmVersionError, type SlurmSettings, type SlurmVersion } from "@/server/slurm/slurm-client";
import type { SlurmJob, SlurmPartition, SlurmReservation } from "@/server/slurm/slurm-model";
import { EMPTY_SLURM_CALENDAR } from "@/server/slurm/slurm-calendar";
import type { SlurmCalendar, SlurmUnplanned } from "@/lib/domain/slurm";

/** The cluster as gpudesk last saw it: /api/health, Admin → Hosts and the booking checks read this. */
export interface SlurmClusterState {
  url: string;
  /**
   * "up": slurmrestd answered the last call; "down": it did not; "refused": it
   * answered but will not serve gpudesk (its credentials, a Slurm too old).
   * The one-line reason in `message`.
   */
  state: "up" | "down" | "refused";
  message: string | null;
  version: SlurmVersion | null;
  /** Slurm's NodeNames, from the last answer (kept while Slurm is down: a booking there is refused, not booked only in gpudesk). */
  nodes: string[];
  /** When Slurm last answered; ISO. */
  checkedAt: string | null;
}

/** The cluster as Admin → Hosts and /api/health show it: one view, read by both. */
export interface SlurmClusterView {
  url: string;
  state: SlurmClusterState["state"];
  /** Why it is down or refused, in one line; null when up. */
  message: string | null;
  /** Slurm's release ("26.05.5") and the API version in use ("v0.0.45"); null until it answered once. */
  version: string | null;
  api: string | null;
  /** When the jobs and reservations were last read (a pass); ISO, null: never. */
  lastPass: string | null;
  /** Slurm's nodes that are gpudesk hosts (by name or mapping), and those that are none. */
  nodes: { mapped: { node: string; host: string }[]; unmapped: string[] };
  /** Pending jobs Slurm has not planned (no node known): on no GPU of the calendar. */
  unplanned: SlurmUnplanned;
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
  partitions: SlurmPartition[] = [];
  /** Slurm's jobs and foreign reservations on gpudesk's units, built from the last lists (server/hosts/slurm-calendar-hosts.ts). */
  calendar: SlurmCalendar = EMPTY_SLURM_CALENDAR;
  /** When the lists were last read (ms; 0: never). */
  refreshedAt = 0;
  /** gpudesk's hosts on Slurm nodes, as the last calendar laid them (server/hosts/slurm-calendar-hosts.ts). */
  hostsOnNodes: { node: string; host: string }[] = [];

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
      const [nodes, jobs, reservations, partitions] = await Promise.all([this.client.listNodes(), this.client.listJobs(), this.client.listReservations(), this.client.listPartitions()]);
      this.jobs = jobs;
      this.reservations = reservations;
      this.partitions = partitions;
      this.refreshedAt = Date.now();
      const wasDown = this.current.state !== "up" && this.current.checkedAt !== null;
      this.current = { ...this.current, state: "up", message: null, version, nodes, checkedAt: new Date().toISOString() };
      if (wasDown) log.info(`Slurm at ${this.current.url} answers again`);
    } catch (error) {
      this.markDown(error);
      throw error;
    }
  }

  /**
   * A call failed because slurmrestd did not answer ("down"), or answered that
   * it will not serve gpudesk ("refused": 401/403, a version gpudesk cannot
   * use): the fleet says so until the next answer. Slurm's refusal of one
   * reservation is no state of the cluster.
   */
  markDown(error: unknown): void {
    const refused = error instanceof SlurmVersionError || (error instanceof SlurmError && (error.status === 401 || error.status === 403));
    if (!(error instanceof SlurmUnreachable) && !refused) return;
    if (this.current.state === "up") log.warn(error.message);
    this.current = { ...this.current, state: refused ? "refused" : "down", message: error.message };
  }

  /** The cluster's state, its nodes mapped to hosts or not, and what the calendar cannot place: Admin → Hosts and /api/health. */
  view(): SlurmClusterView {
    const status = this.current;
    const mapped = this.hostsOnNodes.filter((entry) => status.nodes.includes(entry.node));
    const onHosts = new Set(mapped.map((entry) => entry.node));
    return {
      url: status.url,
      state: status.state,
      message: status.state === "up" ? null : status.message,
      version: status.version?.release ?? null,
      api: status.version?.api ?? null,
      lastPass: this.refreshedAt === 0 ? null : new Date(this.refreshedAt).toISOString(),
      nodes: { mapped, unmapped: status.nodes.filter((node) => !onHosts.has(node)) },
      unplanned: this.calendar.unplanned,
    };
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
