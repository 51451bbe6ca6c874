import { describe, expect, it } from "vitest";
import { dayStarts, dragWindow, SLOT_MS, slotInDay, spanInDay } from "@/components/bookings/week-grid";

const HOUR = 3600_000;
const local = (h: number, m = 0) => new Date(2026, 11, 7, h, m).getTime();

describe("the week view's grid", () => {
  it("starts each day at local midnight, a week of them", () => {
    const starts = dayStarts(local(15, 20));
    expect(starts).toHaveLength(8);
    expect(starts[0]).toBe(local(0));
    expect(new Date(starts[7]).getDate()).toBe(14);
  });

  it("names the half hour under the pointer, never past the day's last one", () => {
    const [start, end] = dayStarts(local(12));
    expect(slotInDay(start, end, 9.75 / 24)).toBe(local(9, 30));
    expect(slotInDay(start, end, 1)).toBe(local(23, 30));
    expect(slotInDay(start, end, -1)).toBe(local(0));
  });

  it("cuts a booking into the days it spans", () => {
    const [start, end, next] = dayStarts(local(12));
    const overnight = { startMs: local(18), endMs: local(18) + 12 * HOUR };
    expect(spanInDay(overnight, start, end)).toEqual({ top: 18 / 24, height: 6 / 24 });
    expect(spanInDay(overnight, end, next)).toEqual({ top: 0, height: 6 / 24 });
    expect(spanInDay({ startMs: local(1), endMs: local(2) }, end, next)).toBeNull();
  });

  it("selects the free window a drag covers: from now at the earliest, up to the next booking", () => {
    const now = local(8, 10);
    const busy = [{ startMs: local(12), endMs: local(14) }];
    // Dragged upwards from 10:30 to 9:00: 9:00 to 11:00.
    expect(dragWindow(local(10, 30), local(9), busy, now)).toEqual({ startMs: local(9), endMs: local(11) });
    // Over the booking: cut where it begins.
    expect(dragWindow(local(11), local(15), busy, now)).toEqual({ startMs: local(11), endMs: local(12) });
    // From the past: from now.
    expect(dragWindow(local(7), local(8, 30), busy, now)).toEqual({ startMs: now, endMs: local(9) });
    // Starting on a booking, or all past: nothing.
    expect(dragWindow(local(12, 30), local(15), busy, now)).toBeNull();
    expect(dragWindow(local(6), local(7), busy, now)).toBeNull();
    expect(SLOT_MS).toBe(30 * 60_000);
  });
});
