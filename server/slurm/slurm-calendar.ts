import { SLURM_OPEN_END, slurmReservationName, type SlurmBlock, type SlurmCalendar, type SlurmRun } from "@/lib/domain/slurm";
import type { SlurmJob, SlurmPartition, SlurmReservation } from "@/server/slurm/slurm-model";

/** A gpudesk host as the calendar maps Slurm onto it: its Slurm node (null: none) and its whole GPUs. */
export interface SlurmCalendarHost {
  id: string;
  name: string;
  node: string | null;
  gpus: { id: string; uuid: string; index: number }[];
}

/** A hold nobody can date: until it ends (no day invented). */
const OPEN_END_MS = Date.parse(SLURM_OPEN_END);
const GPUDESK_PREFIX = slurmReservationName("");

export { EMPTY_SLURM_CALENDAR } from "@/lib/domain/slurm";

interface Wanted {
  kind: SlurmBlock["kind"];
  id: string;
  user: string | null;
  state: SlurmBlock["state"];
  host: SlurmCalendarHost;
  /** The indices Slurm named (a running job's `gres_detail`), else null: `count` of them, drawn here. */
  indices: number[] | null;
  count: number;
  startMs: number;
  endMs: number;
  noTimeLimit: boolean;
}

/**
 * Slurm's jobs and reservations as blocks on gpudesk's units, from one jobs
 * list and one reservations list (the connection's, once per pass):
 *
 * - a reservation gpudesk did not make holds its GPUs (a count per node; all
 *   of a node's GPUs where it names none, as a maintenance reservation does)
 *   over its times;
 * - a running or pending job outside any reservation holds its GPUs until its
 *   time limit: a running one the indices `gres_detail` names, a pending one
 *   a count from its expected start;
 * - a job under a reservation gpudesk did not make is inside that block;
 * - a job under a booking's reservation is the booker's run (`runs`), not a block;
 * - a job without a time limit holds its GPUs until its partition's MaxTime,
 *   else until it ends (SLURM_OPEN_END), marked `noTimeLimit`;
 * - a pending job Slurm has not planned (no node known) is on no GPU: it is
 *   counted in `unplanned`.
 *
 * Slurm names no indices for a count (a pending job, a reservation): those
 * are drawn on the node's highest GPUs that nothing named holds then, so
 * that "any N GPUs" of gpudesk takes the others first.
 */
export function buildSlurmCalendar(
  jobs: readonly SlurmJob[],
  reservations: readonly SlurmReservation[],
  hosts: readonly SlurmCalendarHost[],
  nowMs: number,
  partitions: readonly SlurmPartition[] = [],
): SlurmCalendar {
  const maxTime = new Map(partitions.map((partition) => [partition.name, partition.maxTimeMs]));
  const byNode = new Map<string, SlurmCalendarHost>();
  for (const host of hosts) if (host.node && host.gpus.length > 0) byNode.set(host.node, host);
  const foreign = new Set<string>();
  const wanted: Wanted[] = [];
  const runs: SlurmRun[] = [];

  for (const reservation of reservations) {
    if (reservation.name.startsWith(GPUDESK_PREFIX)) continue;
    foreign.add(reservation.name);
    const startMs = Math.max(reservation.startsAt ?? nowMs, 0);
    const endMs = reservation.endsAt ?? OPEN_END_MS;
    if (endMs <= nowMs) continue;
    const perNode = reservation.gpus > 0 ? Math.ceil(reservation.gpus / Math.max(1, reservation.nodes.length)) : Infinity;
    for (const node of reservation.nodes) {
      const host = byNode.get(node);
      if (!host) continue;
      const user = reservation.users.length > 0 ? reservation.users.join(", ") : null;
      wanted.push({ kind: "reservation", id: reservation.name, user, state: "reserved", host, indices: null, count: Math.min(perNode, host.gpus.length), startMs, endMs, noTimeLimit: reservation.endsAt === null });
    }
  }
  const unplanned = { jobs: 0, gpus: 0 };

  for (const job of jobs) {
    if (job.state === "other" || job.gpusPerNode === 0) continue;
    if (job.reservation && foreign.has(job.reservation)) continue;
    if (job.state === "pending" && job.nodes.length === 0) {
      unplanned.jobs += 1;
      unplanned.gpus += job.gpusPerNode * job.nodeCount;
      continue;
    }
    const startMs = job.state === "running" ? (job.startsAt ?? nowMs) : Math.max(job.startsAt ?? nowMs, nowMs);
    const partitionMax = maxTime.get(job.partition) ?? null;
    const limitMs = job.timeLimitMs ?? partitionMax;
    const endMs = job.endsAt !== null && job.endsAt > startMs ? job.endsAt : limitMs !== null ? startMs + limitMs : OPEN_END_MS;
    for (const node of job.nodes) {
      const host = byNode.get(node);
      if (!host) continue;
      const indices = job.gpuIndices[node] ?? null;
      if (job.reservation?.startsWith(GPUDESK_PREFIX)) {
        if (job.state === "running") {
          runs.push({ bookingId: job.reservation.slice(GPUDESK_PREFIX.length), jobId: job.id, user: job.user, hostId: host.id, hostName: host.name, gpuIndices: indices ?? [], until: job.endsAt === null ? null : new Date(job.endsAt).toISOString() });
        }
        continue;
      }
      wanted.push({ kind: "job", id: String(job.id), user: job.user || null, state: job.state, host, indices, count: job.gpusPerNode, startMs, endMs, noTimeLimit: job.noTimeLimit || endMs === OPEN_END_MS });
    }
  }

  // Named indices first; then the counts, soonest first, on what is left.
  const placed: { hostId: string; index: number; startMs: number; endMs: number }[] = [];
  const blocks: SlurmBlock[] = [];
  const ordered = [...wanted].sort((a, b) => Number(a.indices === null) - Number(b.indices === null) || a.startMs - b.startMs);
  for (const entry of ordered) {
    const gpus = entry.indices !== null ? entry.host.gpus.filter((gpu) => entry.indices!.includes(gpu.index)) : drawCount(entry, placed);
    for (const gpu of gpus) placed.push({ hostId: entry.host.id, index: gpu.index, startMs: entry.startMs, endMs: entry.endMs });
    blocks.push({
      kind: entry.kind,
      id: entry.id,
      user: entry.user,
      state: entry.state,
      hostId: entry.host.id,
      hostName: entry.host.name,
      gpus: [...gpus].sort((a, b) => a.index - b.index),
      startsAt: new Date(entry.startMs).toISOString(),
      endsAt: new Date(entry.endMs).toISOString(),
      ...(entry.noTimeLimit ? { noTimeLimit: true as const } : {}),
    });
  }
  blocks.sort((a, b) => a.startsAt.localeCompare(b.startsAt) || a.hostName.localeCompare(b.hostName) || a.id.localeCompare(b.id));
  return { blocks, runs, unplanned };
}

/** `count` GPUs of the host, highest first, that no block placed already holds during the entry's times (then any, if too few are left). */
function drawCount(entry: Wanted, placed: readonly { hostId: string; index: number; startMs: number; endMs: number }[]): SlurmCalendarHost["gpus"] {
  const byIndex = [...entry.host.gpus].sort((a, b) => b.index - a.index);
  const taken = (index: number) => placed.some((other) => other.hostId === entry.host.id && other.index === index && other.startMs < entry.endMs && entry.startMs < other.endMs);
  const free = byIndex.filter((gpu) => !taken(gpu.index));
  const rest = byIndex.filter((gpu) => taken(gpu.index));
  return [...free, ...rest].slice(0, entry.count);
}
