import { describe, expect, it } from "vitest";
import { formatDurationMinutes, requestedWindow, START_GRACE_MS } from "@/lib/domain/booking-window";
import { rangesOverlap, bookingState } from "@/lib/domain/booking-state";

const start = Date.parse("2026-12-01T10:00:00Z");
const end = Date.parse("2026-12-01T12:00:00Z");

describe("booking state", () => {
  it("is scheduled before the start, active in [start, end), expired from the end on", () => {
    const booked = { status: "booked", startsAt: new Date(start), endsAt: new Date(end) };
    expect(bookingState(booked, start - 1)).toBe("scheduled");
    expect(bookingState(booked, start)).toBe("active");
    expect(bookingState(booked, end - 1)).toBe("active");
    expect(bookingState(booked, end)).toBe("expired");
  });

  it("keeps released and cancelled whatever the time", () => {
    expect(bookingState({ status: "released", startsAt: start, endsAt: end }, start + 1)).toBe("released");
    expect(bookingState({ status: "cancelled", startsAt: "2026-12-01T10:00:00Z", endsAt: "2026-12-01T12:00:00Z" }, 0)).toBe("cancelled");
  });

  it("treats back-to-back ranges and empty ranges as not overlapping", () => {
    expect(rangesOverlap(0, 10, 10, 20)).toBe(false);
    expect(rangesOverlap(0, 11, 10, 20)).toBe(true);
    expect(rangesOverlap(5, 5, 0, 20)).toBe(false);
  });
});

describe("the requested window", () => {
  it("starts now without a start, and counts a duration from the start", () => {
    expect(requestedWindow({ durationMinutes: 60 }, start)).toEqual({ startMs: start, endMs: start + 3600_000, startInPast: false });
    expect(requestedWindow({ startsAt: "2026-12-01T11:00:00+01:00", endsAt: "2026-12-01T12:00:00Z" }, start - 3600_000)).toEqual({
      startMs: start,
      endMs: end,
      startInPast: false,
    });
  });

  it("takes a start within the grace as now, and flags one before it", () => {
    const moment = new Date(start - START_GRACE_MS + 1000).toISOString();
    expect(requestedWindow({ startsAt: moment, durationMinutes: 1 }, start)).toMatchObject({ startMs: start, startInPast: false });
    const old = new Date(start - START_GRACE_MS - 1000).toISOString();
    expect(requestedWindow({ startsAt: old, durationMinutes: 1 }, start).startInPast).toBe(true);
  });

  it("formats durations", () => {
    expect(formatDurationMinutes(45)).toBe("45 min");
    expect(formatDurationMinutes(90)).toBe("1 h 30 min");
    expect(formatDurationMinutes(7 * 24 * 60)).toBe("7 d");
  });
});
