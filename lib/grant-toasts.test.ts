import { describe, expect, it } from "vitest";
import { GRANT_SETTLE_MS, grantsStillHeld } from "@/lib/grant-toasts";

const toast = (bookingId: string | null, shownAt = 1_000) => ({ reservationId: bookingId, shownAt });

describe("grantsStillHeld", () => {
  it("keeps a toast while its booking is live, and drops it once the booking is released", () => {
    const toasts = [toast("r1"), toast("r2")];
    expect(grantsStillHeld(toasts, { bookingIds: new Set(["r1", "r2"]), updatedAt: 2_000 }, new Set())).toEqual(toasts);
    expect(grantsStillHeld(toasts, { bookingIds: new Set(["r2"]), updatedAt: 3_000 }, new Set(["r1", "r2"]))).toEqual([toast("r2")]);
  });

  it("waits for a booking the live feed has not brought yet, but not for ever", () => {
    const fresh = [toast("r3", 10_000)];
    expect(grantsStillHeld(fresh, { bookingIds: new Set(), updatedAt: 10_500 }, new Set())).toEqual(fresh);
    expect(grantsStillHeld(fresh, { bookingIds: new Set(), updatedAt: null }, new Set())).toEqual(fresh);
    expect(grantsStillHeld(fresh, { bookingIds: new Set(), updatedAt: 10_000 + GRANT_SETTLE_MS + 1 }, new Set())).toEqual([]);
  });

  it("keeps a toast that names no booking until it is dismissed", () => {
    expect(grantsStillHeld([toast(null)], { bookingIds: new Set(), updatedAt: 99_000 }, new Set())).toEqual([toast(null)]);
  });
});
