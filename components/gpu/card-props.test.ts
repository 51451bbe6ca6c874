import { describe, expect, it } from "vitest";
import type { GpuPoint, LiveBooking, LiveGpu } from "@/lib/live/live";
import type { ProcessInfo } from "@/lib/domain/snapshot";
import {
  bookLinkKind,
  cardNeedsClock,
  OFFSCREEN_READINGS_MS,
  offscreenRefreshDue,
  readingsOnlyChanged,
  sameCardProps,
  sameProcessRows,
  type GpuCardProps,
} from "@/components/gpu/card-props";

// The comparison reads identities only, so stand-ins of the right type are enough.
const gpu = (uuid: string) => ({ uuid }) as LiveGpu;
const booking = (id: string) => ({ id }) as unknown as LiveBooking;

function props(overrides: Partial<GpuCardProps> = {}): GpuCardProps {
  return { gpu: gpu("GPU-a"), sparkline: [] as GpuPoint[], stale: false, nowMs: 1_000, ...overrides };
}

describe("cardNeedsClock", () => {
  it("is true for a stale card or one with a current or next booking", () => {
    expect(cardNeedsClock(false, undefined)).toBe(false);
    expect(cardNeedsClock(false, { current: null, next: null })).toBe(false);
    expect(cardNeedsClock(true, undefined)).toBe(true);
    expect(cardNeedsClock(false, { current: booking("b1"), next: null })).toBe(true);
    expect(cardNeedsClock(false, { current: null, next: booking("b2") })).toBe(true);
  });
});

describe("sameCardProps", () => {
  it("skips a live, unbooked card when only the clock moved", () => {
    const before = props({ booking: { current: null, next: null } });
    expect(sameCardProps(before, { ...before, nowMs: 2_000, booking: { current: null, next: null } })).toBe(true);
  });

  it("redraws a card that shows the clock when the clock moved", () => {
    const stale = props({ stale: true });
    expect(sameCardProps(stale, { ...stale, nowMs: 2_000 })).toBe(false);
    const held = booking("b1");
    const booked = props({ booking: { current: held, next: null } });
    expect(sameCardProps(booked, { ...booked, nowMs: 2_000, booking: { current: held, next: null } })).toBe(false);
    expect(sameCardProps(booked, { ...booked, booking: { current: held, next: null } })).toBe(true);
  });

  it("redraws when the GPU, its sparkline, its staleness or its bookings changed", () => {
    const before = props({ booking: { current: null, next: null } });
    expect(sameCardProps(before, { ...before, gpu: gpu("GPU-a") })).toBe(false);
    expect(sameCardProps(before, { ...before, sparkline: [] })).toBe(false);
    expect(sameCardProps(before, { ...before, stale: true })).toBe(false);
    expect(sameCardProps(before, { ...before, booking: { current: booking("b1"), next: null } })).toBe(false);
    expect(sameCardProps(before, { ...before, booking: undefined })).toBe(false);
  });
});

describe("sameProcessRows", () => {
  const row = (pid: number, overrides: Partial<ProcessInfo> = {}) =>
    ({ pid, user: "alice", usedMemoryMiB: 1024, command: "python train.py", name: "python", ...overrides }) as ProcessInfo;

  it("is true for new lists with the same rows in the same order", () => {
    expect(sameProcessRows([row(1), row(2)], [row(1), row(2)])).toBe(true);
    expect(sameProcessRows([], [])).toBe(true);
  });

  it("is false when a row shown on the card differs, or a row came or went", () => {
    expect(sameProcessRows([row(1)], [row(1, { usedMemoryMiB: 2048 })])).toBe(false);
    expect(sameProcessRows([row(1)], [row(1, { user: "bob" })])).toBe(false);
    expect(sameProcessRows([row(1)], [row(1, { command: "python eval.py" })])).toBe(false);
    expect(sameProcessRows([row(1), row(2)], [row(2), row(1)])).toBe(false);
    expect(sameProcessRows([row(1)], [row(1), row(2)])).toBe(false);
  });
});

describe("bookLinkKind", () => {
  it("gives the green Book only to a free GPU", () => {
    expect(bookLinkKind("free", false, false)).toBe("free");
    expect(bookLinkKind("unbooked_use", false, false)).toBe("busy");
    expect(bookLinkKind("unbooked_use", false, true)).toBe("claim");
    expect(bookLinkKind("error", false, false)).toBe("other");
    expect(bookLinkKind("offline", false, false)).toBe("other");
  });

  it("offers Book after while a booking holds the GPU, whatever runs there", () => {
    for (const state of ["booked_idle", "booked_in_use", "conflict"] as const) expect(bookLinkKind(state, true, false)).toBe("after");
  });
});

describe("readingsOnlyChanged", () => {
  const row = (pid: number, overrides: Partial<ProcessInfo> = {}): ProcessInfo =>
    ({ pid, user: "ada", name: "python", command: "python train.py", usedMemoryMiB: 1_000, gpuUuid: "GPU-a", ...overrides }) as ProcessInfo;
  const reading = (overrides: Partial<LiveGpu> = {}) =>
    ({ uuid: "GPU-a", utilizationGpuPct: 10, memoryUsedMiB: 100, eccErrorsUncorrected: 0, processes: [row(1)], ...overrides }) as LiveGpu;

  it("is true when only numbers moved, the processes' memory included", () => {
    expect(readingsOnlyChanged(reading(), reading({ utilizationGpuPct: 90, memoryUsedMiB: 9_000, processes: [row(1, { usedMemoryMiB: 8_000 })] }))).toBe(true);
  });

  it("is false when a process came, went or changed, or the error count moved", () => {
    expect(readingsOnlyChanged(reading(), reading({ processes: [row(1), row(2)] }))).toBe(false);
    expect(readingsOnlyChanged(reading(), reading({ processes: [] }))).toBe(false);
    expect(readingsOnlyChanged(reading(), reading({ processes: [row(3)] }))).toBe(false);
    expect(readingsOnlyChanged(reading(), reading({ processes: [row(1, { user: "bob" })] }))).toBe(false);
    expect(readingsOnlyChanged(reading(), reading({ eccErrorsUncorrected: 1 }))).toBe(false);
    expect(readingsOnlyChanged(reading(), reading({ uuid: "GPU-b" }))).toBe(false);
  });
});

describe("offscreenRefreshDue", () => {
  const windowS = OFFSCREEN_READINGS_MS / 1000;

  it("takes new readings once per window, one card at a time", () => {
    // One reading a second for a whole window: each card takes exactly one of them.
    for (let phase = 0; phase < windowS; phase += 1) {
      let taken = 0;
      for (let second = 1; second <= windowS; second += 1) if (offscreenRefreshDue(100_000 + (second - 1) * 1000, 100_000 + second * 1000, phase)) taken += 1;
      expect(taken).toBe(1);
    }
  });

  it("spreads the cards over the seconds of the window", () => {
    const dueAt = (phase: number) =>
      Array.from({ length: windowS }, (_, second) => second).find((second) => offscreenRefreshDue(100_000 + second * 1000, 100_000 + (second + 1) * 1000, phase));
    const seconds = new Set(Array.from({ length: windowS }, (_, phase) => dueAt(phase)));
    expect(seconds.size).toBe(windowS);
  });

  it("takes readings whose times cannot be read", () => {
    expect(offscreenRefreshDue(Number.NaN, 1_000, 0)).toBe(true);
  });
});
