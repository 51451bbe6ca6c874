import type { Prisma } from "@prisma/client";
import type { SlurmBookingState } from "@/lib/domain/slurm";

/**
 * Whether Slurm holds a booking's reservation, on its row (a booking across
 * nodes: its node-0 part, whose id is the booking's). Written inside the
 * booking's transaction by the Slurm backend, and by the reconciler.
 */
export async function recordSlurmState(tx: Prisma.TransactionClient, bookingId: string, state: SlurmBookingState | null, message: string | null): Promise<void> {
  await tx.reservation.updateMany({ where: { id: bookingId }, data: { slurmState: state, slurmMessage: message } });
}
