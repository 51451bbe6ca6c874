import type { Prisma } from "@prisma/client";
import type { SlurmBookingState } from "@/lib/domain/slurm";

/**
 * Whether Slurm holds a booking's reservation, on its rows (every part of a
 * booking across nodes). Written inside the booking's transaction by the
 * Slurm backend, and by the reconciler.
 */
export async function recordSlurmState(tx: Prisma.TransactionClient, bookingId: string, state: SlurmBookingState | null, message: string | null): Promise<void> {
  await tx.reservation.updateMany({ where: { OR: [{ id: bookingId }, { groupId: bookingId }] }, data: { slurmState: state, slurmMessage: message } });
}
