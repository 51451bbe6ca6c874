import { describe, expect, it } from "vitest";
import { formatBookingClaim, parseBookingClaim } from "@/lib/domain/booking-claim";
import {
  checkProcessClaims,
  checkBookingClaim,
  bookingClaimValue,
  bookingProof,
} from "@/server/bookings/rules/booking-proof";
import { makeGpu, makeProcess } from "@/server/testing/factories";

const SECRET = "a-test-auth-secret-of-enough-length-0123";
const OTHER_SECRET = "another-servers-auth-secret-of-some-length";
const ID = "cmia1b2c3d4e5f6g7h8i9j0k1";

describe("booking proof", () => {
  it("is 32 base64url characters, the same every time for one booking and server, different across bookings and servers", () => {
    const proof = bookingProof(ID, SECRET);
    expect(proof).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(bookingProof(ID, SECRET)).toBe(proof);
    expect(bookingProof(`${ID}x`, SECRET)).not.toBe(proof);
    expect(bookingProof(ID, OTHER_SECRET)).not.toBe(proof);
    expect(bookingClaimValue(ID, SECRET)).toBe(`${ID}.${proof}`);
  });

  it("proves the booking only with its own proof", () => {
    expect(checkBookingClaim(bookingClaimValue(ID, SECRET), SECRET)).toEqual({ reservationId: ID, proven: true });
    // A bare id, as every viewer of the schedule can read it.
    expect(checkBookingClaim(ID, SECRET)).toEqual({ reservationId: ID, proven: false });
    // Another booking's proof, a proof from another server, a guess, a cut-off proof, an empty one.
    expect(checkBookingClaim(formatBookingClaim(ID, bookingProof("cmiotherbooking0000000000", SECRET)), SECRET)?.proven).toBe(false);
    expect(checkBookingClaim(bookingClaimValue(ID, OTHER_SECRET), SECRET)?.proven).toBe(false);
    expect(checkBookingClaim(`${ID}.${"A".repeat(32)}`, SECRET)?.proven).toBe(false);
    expect(checkBookingClaim(bookingClaimValue(ID, SECRET).slice(0, -1), SECRET)?.proven).toBe(false);
    expect(checkBookingClaim(`${ID}.`, SECRET)).toEqual({ reservationId: ID, proven: false });
  });

  it("refuses a proof that only decodes to the right bytes (characters outside base64url, padding)", () => {
    const proof = bookingProof(ID, SECRET);
    expect(checkBookingClaim(`${ID}.${proof}==`, SECRET)?.proven ?? false).toBe(false);
    expect(checkBookingClaim(`${ID}.${proof.slice(0, 16)}.${proof.slice(16)}`, SECRET)?.proven).toBe(false);
  });

  it("names nothing for values gpudesk never issues", () => {
    expect(checkBookingClaim(null, SECRET)).toBeNull();
    expect(checkBookingClaim("", SECRET)).toBeNull();
    expect(checkBookingClaim("res; rm -rf /", SECRET)).toBeNull();
    expect(checkBookingClaim(".proof-without-id", SECRET)).toBeNull();
    expect(checkBookingClaim("r".repeat(129), SECRET)).toBeNull();
    expect(parseBookingClaim(` ${ID}.abc `)).toEqual({ reservationId: ID, proof: "abc" });
  });

  it("keeps only the booking id of a reading's processes, and overrides what an agent says was proven", () => {
    const gpu = makeGpu();
    const [proven, bare, forged, none] = checkProcessClaims(
      [
        makeProcess(gpu, { pid: 1, reservationId: bookingClaimValue(ID, SECRET) }),
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
    expect(JSON.stringify([proven, bare, forged, none])).not.toContain(bookingProof(ID, SECRET));
  });
});
