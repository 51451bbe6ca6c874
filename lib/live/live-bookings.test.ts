import { describe, expect, it } from "vitest";
import type { FleetSnapshot, LiveBooking } from "@/lib/live/live";
import { applyBookings, applySnapshot, bookingsOfGpu, initialLiveFleetState } from "@/lib/live/live-fleet-state";

function booking(id: string, uuids: string[], startsAt: string, endsAt: string): LiveBooking {
  return {
    reservationId: id,
    hostId: "h1",
    hostName: "node-a",
    gpus: uuids.map((uuid, index) => ({ uuid, index })),
    bookedBy: { id: "u1", username: "alice", name: "Alice" },
    startsAt,
    endsAt,
    purpose: "train",
  };
}

const snapshot: FleetSnapshot = { serverTime: "2026-12-01T10:00:00Z", simulated: true, hosts: [], gpus: [], sparklines: {} };

describe("bookings in the live state", () => {
  it("come with the snapshot (none from a server without a feed) and are replaced by each update", () => {
    const withoutFeed = applySnapshot(initialLiveFleetState, snapshot, 0);
    expect(withoutFeed.bookings).toEqual([]);
    const first = booking("r1", ["GPU-a"], "2026-12-01T09:00:00Z", "2026-12-01T11:00:00Z");
    const state = applySnapshot(initialLiveFleetState, { ...snapshot, bookings: [first] }, 0);
    expect(state.bookings).toEqual([first]);
    const next = applyBookings(state, { serverTime: "2026-12-01T10:00:05Z", bookings: [] }, 1000);
    expect(next.bookings).toEqual([]);
    expect(next.clockOffsetMs).toBe(Date.parse("2026-12-01T10:00:05Z") - 1000);
  });

  it("are ignored before the first snapshot, which brings them all", () => {
    const update = { serverTime: snapshot.serverTime, bookings: [booking("r1", ["GPU-a"], snapshot.serverTime, snapshot.serverTime)] };
    expect(applyBookings(initialLiveFleetState, update, 0)).toBe(initialLiveFleetState);
  });

  it("tell who holds a GPU now and who is next, by the clock", () => {
    const now = booking("r1", ["GPU-a", "GPU-b"], "2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z");
    const later = booking("r2", ["GPU-a"], "2026-12-01T10:00:00Z", "2026-12-01T12:00:00Z");
    const list = [now, later];
    expect(bookingsOfGpu(list, { uuid: "GPU-a" }, Date.parse("2026-12-01T09:30:00Z"))).toEqual({ current: now, next: later });
    // At 10:00 the first has ended and the second begun: [start, end).
    expect(bookingsOfGpu(list, { uuid: "GPU-a" }, Date.parse("2026-12-01T10:00:00Z"))).toEqual({ current: later, next: null });
    expect(bookingsOfGpu(list, { uuid: "GPU-c" }, Date.parse("2026-12-01T09:30:00Z"))).toEqual({ current: null, next: null });
  });
});
