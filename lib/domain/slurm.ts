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
