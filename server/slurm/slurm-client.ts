import { readFileSync } from "node:fs";
import { signSlurmToken } from "@/server/slurm/slurm-token";
import {
  errorsAnswer,
  jobsAnswer,
  nodesAnswer,
  openapiAnswer,
  partitionsAnswer,
  reservationsAnswer,
  toSlurmJob,
  toSlurmPartition,
  toSlurmReservation,
  type SlurmErrorEntry,
  type SlurmJob,
  type SlurmPartition,
  type SlurmReservation,
} from "@/server/slurm/slurm-model";

/** The oldest Slurm gpudesk works with: 25.05 updates and deletes reservations over REST and keeps other jobs off a reservation's GPUs. */
export const MIN_SLURM = { major: 25, minor: 5 } as const;
/** The oldest data parser (API version) with what gpudesk calls. */
const MIN_API = 43;

export interface SlurmSettings {
  /** slurmrestd's address, e.g. http://slurm-ctl:6820. */
  url: string;
  /** The Slurm user gpudesk acts as (an Operator in sacctmgr). */
  user: string;
  /** The cluster's jwt_hs256.key: gpudesk signs short-lived tokens with it. */
  jwtKeyFile?: string;
  /** Or a token made by `scontrol token` (it expires; the key is better). */
  token?: string;
  /** How long one call may take. */
  timeoutMs?: number;
}

/** Slurm answered with errors (a refusal), or with a status other than 2xx. */
export class SlurmError extends Error {
  constructor(
    readonly status: number,
    readonly errors: SlurmErrorEntry[],
    message: string,
  ) {
    super(message);
  }

  /** Slurm's error number (2016: "Requested nodes are busy"), the first one given. */
  get number(): number | undefined {
    return this.errors.find((entry) => entry.error_number !== undefined && entry.error_number !== 0)?.error_number;
  }
}

/** slurmrestd could not be reached or did not answer in time. */
export class SlurmUnreachable extends Error {}

/** What a reservation is made of, in gpudesk's terms. */
export interface ReservationSpec {
  name: string;
  users: string[];
  nodes: string[];
  gpusPerNode: number;
  startsAt: Date;
  endsAt: Date;
  comment?: string;
}

export interface SlurmVersion {
  release: string;
  major: number;
  minor: number;
  /** The highest data parser slurmrestd offers, e.g. "v0.0.45". */
  api: string;
}

/**
 * slurmrestd over HTTP: version discovery, reservations (create, update,
 * delete, list) and the jobs list. One call per method, no retries: the
 * caller decides (a booking refuses at once, the reconciler tries next pass).
 */
export class SlurmClient {
  private version: SlurmVersion | null = null;
  private readonly key: Buffer | null;

  constructor(
    readonly settings: SlurmSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.key = settings.jwtKeyFile ? readFileSync(settings.jwtKeyFile) : null;
  }

  /** The API version in use (after `connect`). */
  get api(): string {
    if (!this.version) throw new Error("SlurmClient.connect() first");
    return this.version.api;
  }

  /**
   * Asks slurmrestd which Slurm and which API versions it runs, and picks the
   * highest API version. Throws a one-line reason for a Slurm older than 25.05.
   */
  async connect(): Promise<SlurmVersion> {
    const answer = openapiAnswer.parse(await this.call("GET", "/openapi/v3"));
    const xslurm = answer.info["x-slurm"];
    const major = Number(xslurm?.version?.major ?? NaN);
    const minor = Number(xslurm?.version?.minor ?? NaN);
    const release = xslurm?.release ?? answer.info.version ?? "unknown";
    const offered = new Set<number>(xslurm?.data_parsers.map((parser) => apiNumber(parser.plugin)) ?? []);
    for (const path of Object.keys(answer.paths)) {
      const match = /^\/slurm\/v0\.0\.(\d+)\/reservation$/.exec(path);
      if (match) offered.add(Number(match[1]));
    }
    const best = Math.max(...[...offered].filter((n) => Number.isFinite(n)), -1);
    if (!Number.isFinite(major) || major < MIN_SLURM.major || (major === MIN_SLURM.major && minor < MIN_SLURM.minor)) {
      throw new SlurmVersionError(`Slurm ${release} at ${this.settings.url} is older than 25.05: gpudesk needs 25.05 or later (reservations of GPUs over REST)`);
    }
    if (best < MIN_API) throw new SlurmVersionError(`slurmrestd at ${this.settings.url} offers no API v0.0.${MIN_API} or later (offered: ${[...offered].sort().map((n) => `v0.0.${n}`).join(", ") || "none"})`);
    this.version = { release, major, minor, api: `v0.0.${best}` };
    return this.version;
  }

  async ping(): Promise<void> {
    await this.slurm("GET", "ping");
  }

  /** Slurm's NodeNames. */
  async listNodes(): Promise<string[]> {
    return nodesAnswer.parse(await this.slurm("GET", "nodes")).nodes.map((node) => node.name);
  }

  async listJobs(): Promise<SlurmJob[]> {
    return jobsAnswer.parse(await this.slurm("GET", "jobs")).jobs.map(toSlurmJob);
  }

  /** The partitions' MaxTime: a job without a time limit is held until it, where its partition has one. */
  async listPartitions(): Promise<SlurmPartition[]> {
    return partitionsAnswer.parse(await this.slurm("GET", "partitions")).partitions.map(toSlurmPartition);
  }

  async listReservations(): Promise<SlurmReservation[]> {
    return reservationsAnswer.parse(await this.slurm("GET", "reservations")).reservations.map(toSlurmReservation);
  }

  /** Creates it; throws SlurmError when Slurm refuses (2016: the nodes' GPUs are busy). */
  async createReservation(spec: ReservationSpec): Promise<void> {
    await this.slurm("POST", "reservation", {
      name: spec.name,
      users: spec.users,
      node_list: spec.nodes,
      // One count per node: a booking across nodes holds the same GPUs on each.
      flags: ["TRES_PER_NODE"],
      tres: [{ type: "gres", name: "gpu", count: spec.gpusPerNode }],
      start_time: { set: true, number: Math.floor(spec.startsAt.getTime() / 1000) },
      end_time: { set: true, number: Math.ceil(spec.endsAt.getTime() / 1000) },
      ...(spec.comment ? { comment: spec.comment } : {}),
    });
  }

  /** Moves its times: only the changed fields (a full re-POST fails, "Core-based reservation can not be updated"). */
  async updateReservation(name: string, change: { startsAt?: Date; endsAt?: Date }): Promise<void> {
    await this.slurm("POST", "reservation", {
      name,
      ...(change.startsAt ? { start_time: { set: true, number: Math.floor(change.startsAt.getTime() / 1000) } } : {}),
      ...(change.endsAt ? { end_time: { set: true, number: Math.ceil(change.endsAt.getTime() / 1000) } } : {}),
    });
  }

  /**
   * Deletes it; one that is not there (any more) is fine. One that a job runs
   * under (2055, "in use") cannot be deleted: it is ended now instead, and Slurm
   * drops it when its last job ends (the job keeps the GPUs it runs on).
   */
  async deleteReservation(name: string): Promise<"deleted" | "ended"> {
    try {
      await this.slurm("DELETE", `reservation/${encodeURIComponent(name)}`);
      return "deleted";
    } catch (error) {
      if (error instanceof SlurmError && error.number === RESERVATION_INVALID) return "deleted";
      if (error instanceof SlurmError && error.number === RESERVATION_IN_USE) {
        await this.updateReservation(name, { endsAt: new Date(this.now() + 1000) });
        return "ended";
      }
      throw error;
    }
  }

  private async slurm(method: string, path: string, body?: unknown): Promise<unknown> {
    // Slurm away at start: the version is asked on the first call once it answers.
    if (!this.version) await this.connect();
    const answer = await this.call(method, `/slurm/${this.api}/${path}`, body);
    const parsed = errorsAnswer.safeParse(answer);
    const errors = parsed.success ? parsed.data.errors.filter((entry) => (entry.error_number ?? 1) !== 0) : [];
    if (errors.length > 0) throw new SlurmError(422, errors, describeErrors(errors));
    return answer;
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { "X-SLURM-USER-NAME": this.settings.user, "X-SLURM-USER-TOKEN": this.token(), Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(new URL(path, this.settings.url), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.timeoutMs ?? 5000),
      });
    } catch (error) {
      const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
      throw new SlurmUnreachable(`Slurm (slurmrestd at ${this.settings.url}) cannot be reached: ${cause}`);
    }
    const textBody = await response.text();
    let json: unknown = null;
    try {
      json = textBody ? JSON.parse(textBody) : null;
    } catch {
      json = null;
    }
    if (!response.ok) {
      const parsed = errorsAnswer.safeParse(json);
      const errors = parsed.success ? parsed.data.errors : [];
      const reason = errors.length > 0 ? describeErrors(errors) : textBody.trim().slice(0, 200) || response.statusText;
      if (response.status === 401 || response.status === 403) throw new SlurmError(response.status, errors, `Slurm refused gpudesk's credentials (${this.settings.user}): ${reason}`);
      throw new SlurmError(response.status, errors, reason);
    }
    return json;
  }

  private token(): string {
    if (this.key) return signSlurmToken(this.key, this.settings.user, this.now());
    return this.settings.token ?? "";
  }
}

export class SlurmVersionError extends Error {}

/** Slurm's error 2053: "Requested reservation is invalid" (e.g. deleting one that is gone). */
const RESERVATION_INVALID = 2053;
/** Slurm's error 2055: "Requested reservation is in use" (a job runs under it). */
const RESERVATION_IN_USE = 2055;
/** Slurm's error 2016: "Requested nodes are busy" (jobs hold what a reservation asks for). */
export const NODES_BUSY = 2016;

function apiNumber(plugin: string): number {
  const match = /^v0\.0\.(\d+)$/.exec(plugin);
  return match ? Number(match[1]) : NaN;
}

function describeErrors(errors: SlurmErrorEntry[]): string {
  return errors.map((entry) => `${entry.error ?? entry.description ?? "error"}${entry.error_number ? ` (${entry.error_number})` : ""}`).join("; ");
}
