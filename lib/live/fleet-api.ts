import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { FleetAvailability } from "@/lib/domain/gpu-availability";
import type { DisplayGpu, DisplayHost, FleetSnapshot, LiveBooking } from "@/lib/live/live";
import type { PersonRef } from "@/lib/domain/booking-types";

/** The booking that holds a GPU now, as `GET /api/v1/fleet` carries it per GPU. */
export interface GpuBookingNow {
  reservationId: string;
  bookedBy: PersonRef;
  /** How to show the booker (lib/format/person-name.ts), judged against every booker in the answer. */
  bookedByName: string;
  startsAt: string;
  /** When the booking ends (ISO, UTC). */
  until: string;
  purpose: string;
}

/**
 * `GET /api/v1/fleet`: the live snapshot browsers get, plus what the web
 * derives from it, so that API users and the CLI see what the web sees.
 * Documented in docs/api.md.
 */
export interface FleetAnswer extends FleetSnapshot {
  /** Active and upcoming bookings. */
  bookings: LiveBooking[];
  /** Every GPU's state by the one availability rule (lib/domain/gpu-availability.ts), with its booker and who runs there. */
  gpuStates: Record<string, GpuReconciliation>;
  /** The booking holding each booked GPU now, by GPU UUID; a GPU not listed is not booked now. */
  gpuBookings: Record<string, GpuBookingNow>;
  /** Counts by state for the fleet and per host (keyed by host name). */
  availability: FleetAvailability;
}

/**
 * `GET /api/v1/fleet` for a display token: the display scope, as `/live`
 * gives a wall screen (each GPU's state, rounded load, memory, temperature,
 * the booker's display name and end; each host's name and whether it
 * answers). No purposes, processes, command lines, logins or booking ids.
 */
export interface DisplayFleetAnswer {
  serverTime: string;
  simulated: boolean;
  hosts: DisplayHost[];
  gpus: DisplayGpu[];
  availability: FleetAvailability;
}
