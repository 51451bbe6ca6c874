import { describe, expect, it } from "vitest";
import type { GpuReconciliation } from "@/lib/domain/attribution";
import { gpuStateNow, gpuStateOnPage } from "@/lib/live/gpu-state-now";
import { liveBookingFixture, liveGpuFixture } from "@/lib/testing/live-fixtures";

const gpu = (users: string[]) => liveGpuFixture("GPU-a", users);

const booking = liveBookingFixture([{ uuid: "GPU-a", index: 0 }], { id: "u-alice", username: "alice", name: "Alice" });

describe("gpuStateNow", () => {
  it("takes the server's reconciliation when there is one", () => {
    const reconciled: GpuReconciliation = { state: "booked_in_use", reservationId: "r1", bookedBy: booking.bookedBy, processes: [], problem: null };
    expect(gpuStateNow(gpu(["svc-account"]), true, booking, reconciled)).toBe("booked_in_use");
  });

  it("before the server's states: a process without a booking is in use, never free", () => {
    expect(gpuStateNow(gpu(["bob"]), true, null, undefined)).toBe("unbooked_use");
    expect(gpuStateNow(gpu([]), true, null, undefined)).toBe("free");
  });

  it("before the server's states: the booker's own login is the booker's, anyone else's a conflict", () => {
    expect(gpuStateNow(gpu(["alice"]), true, booking, null)).toBe("booked_in_use");
    expect(gpuStateNow(gpu(["alice", "bob"]), true, booking, null)).toBe("conflict");
    expect(gpuStateNow(gpu([]), true, booking, null)).toBe("booked_idle");
  });

  it("shows a silent host's GPUs offline, whatever the last word was", () => {
    const reconciled: GpuReconciliation = { state: "free", reservationId: null, bookedBy: null, processes: [], problem: null };
    expect(gpuStateNow(gpu([]), false, null, reconciled)).toBe("offline");
  });
});

describe("gpuStateOnPage", () => {
  it("finds the booking that holds the GPU at the server's time, and takes the server's word over it", () => {
    const later = { ...booking, reservationId: "r2", startsAt: "2026-12-01T13:00:00Z", endsAt: "2026-12-01T14:00:00Z" };
    const during = Date.parse("2026-12-01T10:00:00Z");
    const between = Date.parse("2026-12-01T12:30:00Z");
    expect(gpuStateOnPage(gpu([]), true, [booking, later], undefined, during)).toBe("booked_idle");
    expect(gpuStateOnPage(gpu(["alice"]), true, [booking, later], undefined, between)).toBe("unbooked_use");
    const reconciled: GpuReconciliation = { state: "free", reservationId: null, bookedBy: null, processes: [], problem: null };
    expect(gpuStateOnPage(gpu([]), true, [booking], reconciled, during)).toBe("free");
    expect(gpuStateOnPage(gpu([]), false, [booking], reconciled, during)).toBe("offline");
  });
});
