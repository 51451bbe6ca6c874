import { EMPTY_SLURM_CALENDAR, type SlurmBlock, type SlurmUnplanned } from "@/lib/domain/slurm";
import { slurmConnection } from "@/server/slurm/slurm-connection";

/** Slurm's jobs and the reservations gpudesk did not make that hold units at some instant of [from, to): the schedule's and the form's read-only blocks. */
export function listSlurmBlocks(from: Date, to: Date): SlurmBlock[] {
  return (slurmConnection()?.calendar.blocks ?? []).filter((block) => Date.parse(block.startsAt) < to.getTime() && Date.parse(block.endsAt) > from.getTime());
}

/** Pending Slurm jobs with no node known: on no GPU of the schedule, counted in its header. */
export function slurmUnplanned(): SlurmUnplanned {
  return (slurmConnection()?.calendar ?? EMPTY_SLURM_CALENDAR).unplanned;
}
