import { describe, expect, it } from "vitest";
import { formatReservationClaim, parseReservationClaim } from "@/lib/domain/reservation-claim";
import {
  checkProcessClaims,
  checkReservationClaim,
  reservationClaimValue,
  reservationProof,
} from "@/server/bookings/rules/booking-proof";
import { makeGpu, makeProcess } from "@/server/testing/factories";

const SECRET = "a-test-auth-secret-of-enough-length-0123";
const OTHER_SECRET = "another-servers-auth-secret-of-some-length";
const ID = "cmia1b2c3d4e5f6g7h8i9j0k1";

describe("reservation proof", () => {
  it("is 32 base64url characters, the same every time for one booking and server, different across bookings and servers", () => {
    const proof = reservationProof(ID, SECRET);
    expect(proof).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(reservationProof(ID, SECRET)).toBe(proof);
    expect(reservationProof(`${ID}x`, SECRET)).not.toBe(proof);
    expect(reservationProof(ID, OTHER_SECRET)).not.toBe(proof);
    expect(reservationClaimValue(ID, SECRET)).toBe(`${ID}.${proof}`);
  });

  it("proves the booking only with its own proof", () => {
    expect(checkReservationClaim(reservationClaimValue(ID, SECRET), SECRET)).toEqual({ reservationId: ID, proven: true });
    // A bare id, as every viewer of the schedule can read it.
    expect(checkReservationClaim(ID, SECRET)).toEqual({ reservationId: ID, proven: false });
    // Another booking's proof, a proof from another server, a guess, a cut-off proof, an empty one.
    expect(checkReservationClaim(formatReservationClaim(ID, reservationProof("cmiotherbooking0000000000", SECRET)), SECRET)?.proven).toBe(false);
    expect(checkReservationClaim(reservationClaimValue(ID, OTHER_SECRET), SECRET)?.proven).toBe(false);
    expect(checkReservationClaim(`${ID}.${"A".repeat(32)}`, SECRET)?.proven).toBe(false);
    expect(checkReservationClaim(reservationClaimValue(ID, SECRET).slice(0, -1), SECRET)?.proven).toBe(false);
    expect(checkReservationClaim(`${ID}.`, SECRET)).toEqual({ reservationId: ID, proven: false });
  });

  it("refuses a proof that only decodes to the right bytes (characters outside base64url, padding)", () => {
    const proof = reservationProof(ID, SECRET);
    expect(checkReservationClaim(`${ID}.${proof}==`, SECRET)?.proven ?? false).toBe(false);
    expect(checkReservationClaim(`${ID}.${proof.slice(0, 16)}.${proof.slice(16)}`, SECRET)?.proven).toBe(false);
  });

  it("names nothing for values gpudesk never issues", () => {
    expect(checkReservationClaim(null, SECRET)).toBeNull();
    expect(checkReservationClaim("", SECRET)).toBeNull();
    expect(checkReservationClaim("res; rm -rf /", SECRET)).toBeNull();
    expect(checkReservationClaim(".proof-without-id", SECRET)).toBeNull();
    expect(checkReservationClaim("r".repeat(129), SECRET)).toBeNull();
    expect(parseReservationClaim(` ${ID}.abc `)).toEqual({ reservationId: ID, proof: "abc" });
  });

  it("keeps only the booking id of a reading's processes, and overrides what an agent says was proven", () => {
    const gpu = makeGpu();
    const [proven, bare, forged, none] = checkProcessClaims(
      [
        makeProcess(gpu, { pid: 1, reservationId: reservationClaimValue(ID, SECRET) }),
        makeProcess(gpu, { pid: 2, reservationId: ID, reservationProven: true }),
        makeProcess(gpu, { pid: 3, reservationId: `${ID}.${"A".repeat(32)}`, reservationProven: true }),
        makeProcess(gpu, { pid: 4, reservationId: null, reservationProven: true }),
      ],
      SECRET,
    );
    expect(proven).toMatchObject({ pid: 1, reservationId: ID, reservationProven: true });
    expect(bare).toMatchObject({ pid: 2, reservationId: ID, reservationProven: false });
    expect(forged).toMatchObject({ pid: 3, reservationId: ID, reservationProven: false });
    expect(none.reservationId).toBeNull();
    expect(none).not.toHaveProperty("reservationProven");
    // The proof itself goes no further than this.
    expect(JSON.stringify([proven, bare, forged, none])).not.toContain(reservationProof(ID, SECRET));
  });
});
