import { createHmac, timingSafeEqual } from "node:crypto";
import { formatBookingClaim, parseBookingClaim } from "@/lib/domain/booking-claim";
import type { ProcessInfo } from "@/lib/domain/snapshot";
import { loadAuthSecret } from "@/server/auth/auth-secret";
import { env } from "@/server/core/env";

/**
 * The proof that goes with a booking's id in `GPUDESK_RESERVATION`.
 *
 * It is derived, not stored: HMAC-SHA256 of the id under the server's auth
 * secret. So a database dump holds nothing that proves a booking, the booker
 * can be shown the same value again at any time (launch settings, `gpudesk
 * env`), and every instance of a cluster (which share GPUDESK_AUTH_SECRET)
 * checks it without a lookup. Rotating the auth secret voids every proof,
 * like every session.
 */

const DOMAIN = "gpudesk-reservation-proof:";
/** 24 bytes: 32 base64url characters, 192 bits, far beyond guessing. */
const PROOF_BYTES = 24;

let cachedSecret: string | undefined;

function serverSecret(): string {
  cachedSecret ??= loadAuthSecret(env().GPUDESK_AUTH_SECRET, env().dataDir);
  return cachedSecret;
}

function proofBytes(bookingId: string, secret: string): Buffer {
  return createHmac("sha256", secret).update(DOMAIN + bookingId).digest().subarray(0, PROOF_BYTES);
}

/** The secret part of a booking's `GPUDESK_RESERVATION` value. Show it to the booker only. */
export function bookingProof(bookingId: string, secret: string = serverSecret()): string {
  return proofBytes(bookingId, secret).toString("base64url");
}

/** `<reservationId>.<proof>`: what the booker's job puts in `GPUDESK_RESERVATION`. */
export function bookingClaimValue(bookingId: string, secret: string = serverSecret()): string {
  return formatBookingClaim(bookingId, bookingProof(bookingId, secret));
}

export interface CheckedClaim {
  /** The booking the value names (public: ids are). */
  reservationId: string;
  /** True only when the value carries this booking's proof. */
  proven: boolean;
}

/**
 * Reads a `GPUDESK_RESERVATION` value an agent reported: the booking it names
 * and whether it proves it. Null when the value names nothing. The compare
 * takes the same time wherever the proof differs.
 */
export function checkBookingClaim(value: string | null, secret?: string): CheckedClaim | null {
  const claim = parseBookingClaim(value);
  if (!claim) return null;
  if (claim.proof === null) return { reservationId: claim.reservationId, proven: false };
  const expected = proofBytes(claim.reservationId, secret ?? serverSecret());
  const offered = Buffer.from(claim.proof, "base64url");
  // Buffer.from drops what is not base64url; a proof must also read back as itself.
  const wellFormed = offered.length === expected.length && offered.toString("base64url") === claim.proof;
  const proven = wellFormed && timingSafeEqual(offered, expected);
  return { reservationId: claim.reservationId, proven };
}

/**
 * A reading's processes as the server keeps them: each GPUDESK_RESERVATION
 * value reduced to the booking id it names, with `reservationProven` telling
 * whether its proof held. The proof never travels further (live feed,
 * history, other instances), and an agent cannot set `reservationProven`.
 */
export function checkProcessClaims(processes: readonly ProcessInfo[], secret?: string): ProcessInfo[] {
  return processes.map((process) => {
    const claim = checkBookingClaim(process.reservationId, secret);
    const checked: ProcessInfo = { ...process, reservationId: claim?.reservationId ?? null };
    if (claim) checked.reservationProven = claim.proven;
    else delete checked.reservationProven;
    return checked;
  });
}
