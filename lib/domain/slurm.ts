import { z } from "zod";
import { fabricLabelSchema } from "@/lib/domain/fabric";

/** A Slurm NodeName (slurm.conf): letters, digits and - _ . ; null or "" clears the mapping. */
export const slurmNodeSchema = z
  .string()
  .trim()
  .max(64, "At most 64 characters")
  .regex(/^[A-Za-z0-9_.-]*$/, "A Slurm node name: letters, digits and _ . - only")
  .nullable()
  .transform((name) => (name === "" ? null : name));

/** PATCH /api/v1/hosts/:id: the host's fabric label, its Slurm node name, or both. */
export const hostPatchSchema = z
  .strictObject({
    fabricLabel: fabricLabelSchema.shape.fabricLabel.optional(),
    slurmNode: slurmNodeSchema.optional(),
  })
  .refine((input) => input.fabricLabel !== undefined || input.slurmNode !== undefined, "Send fabricLabel, slurmNode or both");

/** The Slurm reservation of a booking: one name per booking, so that a retry finds it instead of making a second. */
export function slurmReservationName(bookingId: string): string {
  return `gpudesk-${bookingId}`;
}

/** Whether Slurm holds a booking's reservation: "held", or "missing" (the reason beside it). */
export type SlurmBookingState = "held" | "missing";

/** A booking's Slurm side as its view shows it; null off Slurm nodes. */
export interface SlurmBookingView {
  reservation: string;
  state: SlurmBookingState;
  message: string | null;
  /** The booker's jobs running under it now, with the GPU indices Slurm gave each on its host (`gres_detail`); absent before one runs. */
  jobs?: { id: number; user: string; host: string; gpuIndices: number[] }[];
}

/**
 * A booking's Slurm lines: on Slurm nodes Slurm picks the GPUs and sets
 * CUDA_VISIBLE_DEVICES itself, so the lines name the reservation and the
 * count only. Across nodes: one batch job over them, `srun torchrun` with
 * the rendezvous on the first node from Slurm's own variables.
 */
export function slurmLaunch(reservation: string, gpusPerNode: number, nodeCount: number): { sbatch: string; srun: string } {
  const gres = `--gres=gpu:${gpusPerNode}`;
  if (nodeCount <= 1) {
    return {
      sbatch: `sbatch --reservation=${reservation} ${gres} job.sh`,
      srun: `srun --reservation=${reservation} ${gres} --pty bash`,
    };
  }
  const torchrun =
    `srun torchrun --nnodes=$SLURM_NNODES --nproc_per_node=${gpusPerNode} --rdzv_id=$SLURM_JOB_ID --rdzv_backend=c10d ` +
    `--rdzv_endpoint=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1):29500 train.py`;
  return {
    sbatch: `sbatch -N ${nodeCount} --ntasks-per-node=1 --reservation=${reservation} ${gres} --wrap '${torchrun}'`,
    srun: `srun -N ${nodeCount} --reservation=${reservation} ${gres} --pty bash`,
  };
}

/**
 * What Slurm holds on gpudesk's calendar that is no gpudesk booking: a job of
 * its own (running: on the GPUs its `gres_detail` names; pending: a count,
 * drawn on the highest GPUs of its node not otherwise held), or a
 * reservation gpudesk did not make (maintenance). Read-only: gpudesk neither
 * moves nor ends them. One block per host; its units are not free from
 * `startsAt` until `endsAt` (a job's time limit).
 */
export interface SlurmBlock {
  kind: "job" | "reservation";
  /** The job's id ("4711"), or the reservation's name. */
  id: string;
  /** The job's Unix user, or the reservation's users joined by ", "; null when Slurm names none. */
  user: string | null;
  state: "running" | "pending" | "reserved";
  hostId: string;
  hostName: string;
  /** The GPU rows it holds (`id` is the Gpu row's, for the server's occupancy). */
  gpus: { id: string; uuid: string; index: number }[];
  startsAt: string;
  /** Its end: a job's time limit; without one (`noTimeLimit`) its partition's MaxTime, else SLURM_OPEN_END (drawn to the view's edge). */
  endsAt: string;
  /** A job without a time limit (UNLIMITED): it holds its GPUs until it ends, and says so rather than an end nobody set. */
  noTimeLimit?: true;
}

/** The end of a hold nobody can date (a job without a time limit in a partition without MaxTime): held until it ends. */
export const SLURM_OPEN_END = "9999-12-31T00:00:00.000Z";

/** Pending jobs Slurm has not planned yet (no node known): not on any GPU, counted so the admin knows. */
export interface SlurmUnplanned {
  jobs: number;
  gpus: number;
}

/** A Slurm job running under a booking's reservation: the booker's run, with the GPU indices Slurm gave it on that host. */
export interface SlurmRun {
  /** The booking (its group's id across nodes) whose reservation the job runs under. */
  bookingId: string;
  jobId: number;
  user: string;
  hostId: string;
  hostName: string;
  gpuIndices: number[];
  until: string | null;
}

/** What Slurm holds now and later, as the calendar and the availability rule read it (refreshed once per pass). */
export interface SlurmCalendar {
  blocks: SlurmBlock[];
  runs: SlurmRun[];
  /** Pending jobs with no node known, and the GPUs they ask for. */
  unplanned: SlurmUnplanned;
}

/** No Slurm, or nothing read yet. */
export const EMPTY_SLURM_CALENDAR: SlurmCalendar = { blocks: [], runs: [], unplanned: { jobs: 0, gpus: 0 } };

/** "2 pending Slurm jobs ask for 7 GPUs (no node planned yet)"; null when there are none. */
export function slurmUnplannedSentence(unplanned: SlurmUnplanned): string | null {
  if (unplanned.jobs === 0) return null;
  const jobs = unplanned.jobs === 1 ? "1 pending Slurm job asks" : `${unplanned.jobs} pending Slurm jobs ask`;
  return `${jobs} for ${unplanned.gpus} GPU${unplanned.gpus === 1 ? "" : "s"} (no node planned yet)`;
}

/** Slurm's hold of a unit now, as the availability rule and its surfaces name it: its own job, a reservation gpudesk did not make, or the booker's job under the booking's reservation. */
export interface SlurmHoldNow {
  kind: SlurmBlock["kind"] | "booked-job";
  id: string;
  user: string | null;
  /** Its end; null where it has none (`noTimeLimit`) or Slurm gives none. */
  until: string | null;
  /** A job without a time limit: held until it ends. */
  noTimeLimit?: true;
}

/** "Slurm job 4711 of bob", "Slurm reservation maint (read-only)": a block's name on the schedule, the picker and the CLI. */
export function slurmHoldName(hold: Pick<SlurmHoldNow, "kind" | "id" | "user">): string {
  if (hold.kind === "reservation") return `Slurm reservation ${hold.id}${hold.user ? ` for ${hold.user}` : ""} (read-only)`;
  return `Slurm job ${hold.id}${hold.user ? ` of ${hold.user}` : ""}`;
}

/** "Held by Slurm job 42 of bob until 16:00", "Slurm job 44 runs under this booking": a unit's Slurm hold in a sentence (the GPU card, the GPU page). */
export function slurmHoldSentence(hold: SlurmHoldNow, when: (iso: string) => string): string {
  if (hold.kind === "booked-job") return `Slurm job ${hold.id} runs under this booking`;
  return `Held by ${slurmHoldName(hold)}${slurmUntil(hold, when)}`;
}

/** " until today 21:00", " (no time limit)", or nothing where Slurm gives no end. */
export function slurmUntil(hold: Pick<SlurmHoldNow, "until" | "noTimeLimit">, when: (iso: string) => string): string {
  if (hold.noTimeLimit) return hold.until ? ` (no time limit; its partition's MaxTime ends it by ${when(hold.until)})` : " (no time limit)";
  return hold.until ? ` until ${when(hold.until)}` : "";
}

/**
 * The words for a unit's state where Slurm holds it (the badge, the fleet's
 * cells, the card, the CLI's STATE column): "Held by Slurm (job 42 of bob)",
 * "Slurm reservation maint"; with `when` its end too ("… until 21:00", "…
 * (no time limit)"). The state itself stays `unbooked_use` for scripts and
 * metrics; null where Slurm holds nothing, or only the booker's job under
 * the booking (the state's own words fit).
 */
export function slurmStateWords(hold: SlurmHoldNow | null | undefined, when?: (iso: string) => string): string | null {
  if (!hold || hold.kind === "booked-job") return null;
  const until = when ? slurmUntil(hold, when) : "";
  if (hold.kind === "reservation") return `Slurm reservation ${hold.id}${until}`;
  return `Held by Slurm (job ${hold.id}${hold.user ? ` of ${hold.user}` : ""})${until}`;
}

/** Slurm's hold of a unit as a wall shows it: no user (a wall shows no login). */
export type WallSlurmHold = { kind: SlurmBlock["kind"]; id: string; until: string | null; noTimeLimit?: true };

/** The wall's share of a hold: its own job or a foreign reservation, without the user; null for none or the booker's job. */
export function wallSlurmHold(hold: SlurmHoldNow | null | undefined): WallSlurmHold | null {
  if (!hold || hold.kind === "booked-job") return null;
  return { kind: hold.kind, id: hold.id, until: hold.until, ...(hold.noTimeLimit ? { noTimeLimit: true as const } : {}) };
}

/** A wall tile's three slots for a unit Slurm holds: "SLURM", "job 42" / "resv maint", "until 21:00" / "no time limit". */
export function slurmWallWords(hold: WallSlurmHold, when: (iso: string) => string): { state: string; who: string; when: string | null } {
  return {
    state: "Slurm",
    who: hold.kind === "job" ? `job ${hold.id}` : `resv ${hold.id}`,
    when: hold.noTimeLimit && !hold.until ? "no time limit" : hold.until ? `until ${when(hold.until)}` : null,
  };
}

/** The block as the availability rule takes it for one instant. */
export function slurmHoldOf(block: SlurmBlock): SlurmHoldNow {
  if (block.noTimeLimit) return { kind: block.kind, id: block.id, user: block.user, until: block.endsAt === SLURM_OPEN_END ? null : block.endsAt, noTimeLimit: true };
  return { kind: block.kind, id: block.id, user: block.user, until: block.endsAt };
}

/** The Slurm block holding a unit at some instant of [startMs, endMs), if any. */
export function slurmBlockInWindow(blocks: readonly SlurmBlock[], uuid: string, startMs: number, endMs: number): SlurmBlock | null {
  return blocks.find((block) => block.gpus.some((gpu) => gpu.uuid === uuid) && Date.parse(block.startsAt) < endMs && startMs < Date.parse(block.endsAt)) ?? null;
}
