import { eventChannel } from "@/server/core/event-bus";

/** A booking's Slurm reservation went missing and could not be made again: announced once, when its state turns "missing". */
export interface SlurmReservationMissing {
  bookingId: string;
  userId: string;
  purpose: string;
  hostNames: string[];
  reservation: string;
  /** Why Slurm refused to make it again (the jobs in the way). */
  reason: string;
  at: Date;
}

const missing = eventChannel<SlurmReservationMissing>("slurmReservationMissing");

/** The reconciler announces it after the commit that marks the booking; notifications listen (the booker is told). */
export const onSlurmReservationMissing = (listener: (event: SlurmReservationMissing) => void): (() => void) => missing.on(listener);
export const announceSlurmReservationMissing = (event: SlurmReservationMissing): void => missing.emit(event);
