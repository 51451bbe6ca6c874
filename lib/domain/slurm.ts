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
