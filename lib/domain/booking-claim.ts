/**
 * The value a job carries in `GPUDESK_RESERVATION`: `<reservationId>.<proof>`.
 * Booking ids are public inside the team (schedule, fleet, /metrics); the
 * proof is a per-booking secret shown only to the booker, so a process that
 * names a booking also proves that its booker handed it the value. The proof
 * is made and checked on the server (server/bookings/rules/booking-proof.ts);
 * this file only writes and reads the text, for the agent, the CLI and the
 * pages alike.
 */

export const BOOKING_VARIABLE = "GPUDESK_RESERVATION";

/** Longest value the agent reports; a cuid id, the dot and a 32-character proof fit with room to spare. */
export const MAX_BOOKING_VALUE_LENGTH = 128;

// Ids are cuids, proofs base64url: anything outside this set is not a value
// gpudesk issued, so the agent drops it rather than repairing it.
const SAFE_VALUE = /^[A-Za-z0-9._:-]+$/;

export interface BookingClaim {
  reservationId: string;
  /** The part after the first dot; null for a bare id (not proof of anything). */
  proof: string | null;
}

export function formatBookingClaim(bookingId: string, proof: string): string {
  return `${bookingId}.${proof}`;
}

/**
 * The `GPUDESK_RESERVATION` value as read from a process environment, trimmed,
 * or null when it is empty, longer than the bound or holds characters gpudesk
 * never issues.
 */
export function cleanBookingValue(value: string | null): string | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_BOOKING_VALUE_LENGTH) return null;
  return SAFE_VALUE.test(trimmed) ? trimmed : null;
}

/** Splits a value into the booking it names and the proof it offers; null when it names nothing. */
export function parseBookingClaim(value: string | null): BookingClaim | null {
  const clean = cleanBookingValue(value);
  if (clean === null) return null;
  const dot = clean.indexOf(".");
  if (dot === -1) return { reservationId: clean, proof: null };
  const bookingId = clean.slice(0, dot);
  if (bookingId.length === 0) return null;
  const proof = clean.slice(dot + 1);
  return { reservationId: bookingId, proof: proof.length > 0 ? proof : null };
}
