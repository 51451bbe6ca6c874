import { afterEach, describe, expect, it, vi } from "vitest";
import type { LiveBooking } from "@/lib/live/live";
import { announceBookingsChanged } from "@/server/bookings/store/booking-events";
import { BookingFeed } from "@/server/bookings/views/booking-feed";

const T0 = Date.parse("2026-12-01T10:00:00Z");

function booking(id: string, startMs: number, endMs: number): LiveBooking {
  return {
    reservationId: id,
    hostId: "h",
    hostName: "node-a",
    gpus: [{ uuid: "GPU-a", index: 0 }],
    bookedBy: { id: "u", username: "alice", name: "Alice" },
    startsAt: new Date(startMs).toISOString(),
    endsAt: new Date(endMs).toISOString(),
    purpose: "train",
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the booking feed", () => {
  it("wakes at the next start and end by itself and sends the fresh list", async () => {
    vi.useFakeTimers({ now: T0 });
    const all = [booking("r1", T0 + 60_000, T0 + 120_000)];
    // What the database would answer: bookings that have not ended.
    const load = vi.fn(async (now: Date) => all.filter((entry) => Date.parse(entry.endsAt) > now.getTime()));
    const feed = new BookingFeed({ load, maxSleepMs: 3_600_000 });
    const sent: LiveBooking[][] = [];
    feed.subscribe((list) => sent.push(list));
    await feed.start();
    expect(sent).toEqual([[all[0]]]);

    await vi.advanceTimersByTimeAsync(59_000);
    expect(sent).toHaveLength(1);
    // The start: same list, but now active, so pages hear about it.
    await vi.advanceTimersByTimeAsync(1_100);
    expect(sent).toHaveLength(2);
    // The end: the booking leaves the list.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent).toHaveLength(3);
    expect(sent[2]).toEqual([]);
    expect(load).toHaveBeenCalledTimes(3);
    feed.stop();
  });

  it("reads again when a service announces a change, once for a burst", async () => {
    vi.useFakeTimers({ now: T0 });
    let list: LiveBooking[] = [];
    const load = vi.fn(async () => list);
    const feed = new BookingFeed({ load });
    const sent: LiveBooking[][] = [];
    feed.subscribe((bookings) => sent.push(bookings));
    await feed.start();
    expect(sent).toEqual([[]]);

    list = [booking("r1", T0, T0 + 60_000)];
    announceBookingsChanged();
    announceBookingsChanged();
    announceBookingsChanged();
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual([[], list]);
    expect(load.mock.calls.length).toBeLessThanOrEqual(3);
    // Nothing changed: nothing is sent.
    announceBookingsChanged();
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toHaveLength(2);
    feed.stop();
    announceBookingsChanged();
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toHaveLength(2);
  });
});
