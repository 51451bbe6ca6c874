import { z } from "zod";
import { expandHostlist } from "@/server/slurm/hostlist";

/**
 * What gpudesk reads of slurmrestd's answers (API v0.0.43 and later), checked
 * at the boundary and turned into plain values: times in milliseconds, node
 * lists expanded, GPU counts and indices parsed out of Slurm's strings.
 */

const number = z.object({ set: z.boolean().optional(), infinite: z.boolean().optional(), number: z.number().optional() }).passthrough();
const text = z.string().max(100_000).optional().default("");

const jobSchema = z
  .object({
    job_id: z.number().int(),
    user_name: text,
    name: text,
    job_state: z.array(z.string()).default([]),
    state_reason: text,
    nodes: text,
    required_nodes: text,
    scheduled_nodes: text,
    resv_name: text,
    gres_detail: z.array(z.string()).default([]),
    tres_per_node: text,
    tres_per_job: text,
    tres_alloc_str: text,
    tres_req_str: text,
    time_limit: number.optional(),
    start_time: number.optional(),
    end_time: number.optional(),
    node_count: number.optional(),
    partition: text,
  })
  .passthrough();

const partitionSchema = z
  .object({
    name: z.string().max(500),
    maximums: z.object({ time: number.optional() }).passthrough().optional(),
  })
  .passthrough();

const reservationSchema = z
  .object({
    name: z.string().max(500),
    users: text,
    node_list: text,
    tres: text,
    flags: z.array(z.string()).default([]),
    start_time: number.optional(),
    end_time: number.optional(),
  })
  .passthrough();

const errorSchema = z.object({ error_number: z.number().optional(), error: z.string().optional(), description: z.string().optional() }).passthrough();

export const jobsAnswer = z.object({ jobs: z.array(jobSchema).max(1_000_000), errors: z.array(errorSchema).default([]) }).passthrough();
export const nodesAnswer = z.object({ nodes: z.array(z.object({ name: z.string().max(200) }).passthrough()).max(100_000) }).passthrough();
export const partitionsAnswer = z.object({ partitions: z.array(partitionSchema).max(100_000), errors: z.array(errorSchema).default([]) }).passthrough();
export const reservationsAnswer = z.object({ reservations: z.array(reservationSchema).max(1_000_000), errors: z.array(errorSchema).default([]) }).passthrough();
export const errorsAnswer = z.object({ errors: z.array(errorSchema).default([]), warnings: z.array(z.unknown()).default([]) }).passthrough();
export const openapiAnswer = z
  .object({
    info: z.object({
      version: z.string().optional(),
      "x-slurm": z
        .object({
          release: z.string().optional(),
          version: z.object({ major: z.string(), minor: z.string(), micro: z.string() }).partial().optional(),
          data_parsers: z.array(z.object({ plugin: z.string() }).passthrough()).default([]),
        })
        .passthrough()
        .optional(),
    }).passthrough(),
    paths: z.record(z.string(), z.unknown()).default({}),
  })
  .passthrough();

export type SlurmErrorEntry = z.infer<typeof errorSchema>;

/** A Slurm job as the calendar and the booking's refusal need it. */
export interface SlurmJob {
  id: number;
  user: string;
  name: string;
  state: "running" | "pending" | "other";
  /** Slurm's reason for a pending job (Resources, Reservation, …). */
  reason: string;
  /** The nodes it runs on (running) or is scheduled or bound to (pending). */
  nodes: string[];
  /** GPUs it holds or asks for on each of its nodes. */
  gpusPerNode: number;
  /** How many nodes it runs on or asks for (a pending job Slurm has not planned names none in `nodes`). */
  nodeCount: number;
  /** Its partition: where it has no time limit, the partition's MaxTime bounds it. */
  partition: string;
  /** It has no time limit (`--time=UNLIMITED` in a partition without MaxTime); then `endsAt` is null, not Slurm's year ahead. */
  noTimeLimit: boolean;
  /** Its time limit (ms); null without one. */
  timeLimitMs: number | null;
  /** Per node, the GPU indices Slurm gave it (running only): "gpu:2(IDX:0-1)" → [0, 1]. */
  gpuIndices: Record<string, number[]>;
  reservation: string | null;
  /** When it started or is expected to; ms. */
  startsAt: number | null;
  /** When its time limit runs out (running) or would (pending): until then it holds its GPUs; null without a time limit. */
  endsAt: number | null;
}

/** A partition as the calendar needs it: its MaxTime (ms), null where it has none (UNLIMITED). */
export interface SlurmPartition {
  name: string;
  maxTimeMs: number | null;
}

/** A Slurm reservation as gpudesk compares it with its bookings. */
export interface SlurmReservation {
  name: string;
  users: string[];
  nodes: string[];
  /** All GPUs it holds, over all its nodes. */
  gpus: number;
  flags: string[];
  startsAt: number | null;
  endsAt: number | null;
}

const seconds = (value: z.infer<typeof number> | undefined): number | null =>
  value && value.set !== false && !value.infinite && typeof value.number === "number" && value.number > 0 ? value.number * 1000 : null;

/** "gres/gpu:2", "gres/gpu:a100:2", "gres:gpu:2" → 2 (0 when it asks for no GPU). */
export function gpusIn(tres: string): number {
  let total = 0;
  for (const item of tres.split(",")) {
    const match = /^gres[/:]gpu(?::[^:=]+)?[:=](\d+)$/.exec(item.trim());
    if (match) total += Number(match[1]);
  }
  return total;
}

/** "gpu:2(IDX:0-1)", "gpu:a100:3(IDX:0,2-3)" → [0, 1] / [0, 2, 3]. */
export function gresIndices(detail: string): number[] {
  const match = /IDX:([0-9,\-]+)/.exec(detail);
  if (!match) return [];
  const indices: number[] = [];
  for (const range of match[1].split(",")) {
    const [from, to] = range.split("-").map(Number);
    for (let n = from; n <= (to ?? from); n++) indices.push(n);
  }
  return indices;
}

export function toSlurmJob(raw: z.infer<typeof jobSchema>): SlurmJob {
  const states = raw.job_state.map((state) => state.toUpperCase());
  const state = states.includes("RUNNING") ? "running" : states.includes("PENDING") ? "pending" : "other";
  const nodes = expandHostlist(raw.nodes || raw.scheduled_nodes || raw.required_nodes);
  const gpuIndices: Record<string, number[]> = {};
  if (state === "running") raw.gres_detail.forEach((detail, at) => nodes[at] !== undefined && (gpuIndices[nodes[at]] = gresIndices(detail)));
  const nodeCount = Math.max(1, nodes.length || (raw.node_count?.number ?? 1));
  const perJob = gpusIn(raw.tres_per_job);
  const gpusPerNode = gpusIn(raw.tres_per_node) || (perJob ? Math.ceil(perJob / nodeCount) : 0);
  // UNLIMITED reads {set: false, infinite: true}; Slurm then sets end_time a year ahead, which is no end anyone planned.
  const noTimeLimit = raw.time_limit?.infinite === true;
  return {
    id: raw.job_id,
    user: raw.user_name,
    name: raw.name,
    state,
    reason: raw.state_reason === "None" ? "" : raw.state_reason,
    nodes,
    gpusPerNode,
    nodeCount,
    partition: raw.partition,
    noTimeLimit,
    // Slurm gives minutes.
    timeLimitMs: noTimeLimit ? null : (seconds(raw.time_limit) ?? 0) * 60 || null,
    gpuIndices,
    reservation: raw.resv_name || null,
    startsAt: seconds(raw.start_time),
    endsAt: noTimeLimit ? null : seconds(raw.end_time),
  };
}

/** A partition's MaxTime: Slurm gives minutes; UNLIMITED (infinite, or not set) is null. */
export function toSlurmPartition(raw: z.infer<typeof partitionSchema>): SlurmPartition {
  const time = raw.maximums?.time;
  const minutes = time && time.set !== false && !time.infinite && typeof time.number === "number" && time.number > 0 ? time.number : null;
  return { name: raw.name, maxTimeMs: minutes === null ? null : minutes * 60_000 };
}

export function toSlurmReservation(raw: z.infer<typeof reservationSchema>): SlurmReservation {
  return {
    name: raw.name,
    users: raw.users.split(",").map((user) => user.trim()).filter(Boolean),
    nodes: expandHostlist(raw.node_list),
    gpus: gpusIn(raw.tres),
    flags: raw.flags,
    startsAt: seconds(raw.start_time),
    endsAt: seconds(raw.end_time),
  };
}
