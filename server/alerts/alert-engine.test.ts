import { describe, expect, it } from "vitest";
import type { AlertKind } from "@/lib/domain/alerts";
import { AlertEngine, type Condition, type EngineStep } from "@/server/alerts/alert-engine";

/**
 * The hold-time state machine, driven second by second with a clock the
 * test owns, over sequences of "bad" (the condition holds) and "good".
 */

const HOLD = 60_000;
const CLEAR = 30_000;
const SCOPE = "gpu:GPU-1";

function condition(key = "conflict:GPU-1:r1", kind: AlertKind = "conflict"): Condition {
  return { key, kind, scope: SCOPE, hostId: "h1", gpuUuid: "GPU-1", gpuIndex: 0, bookingId: "r1", userIds: [], message: "m", evidence: {} };
}

function engine(holdMs = HOLD, clearMs = CLEAR, staleMs = 600_000): AlertEngine {
  return new AlertEngine(() => ({ holdMs, clearMs }), staleMs);
}

/** Feeds one observation per second; `bad[i]` is the condition at second i. Returns the seconds at which alerts opened and closed. */
function drive(subject: AlertEngine, bad: boolean[], options: { startMs?: number; observed?: (second: number) => boolean } = {}) {
  const start = options.startMs ?? 0;
  const opened: number[] = [];
  const closed: { at: number; reason: string }[] = [];
  bad.forEach((isBad, second) => {
    const observed = options.observed?.(second) ?? true;
    const step: EngineStep = subject.step(start + second * 1000, isBad && observed ? [condition()] : [], new Set(observed ? [SCOPE] : []));
    for (const alert of step.opened) opened.push((alert.openedAt - start) / 1000);
    for (const alert of step.closed) closed.push({ at: (alert.closedAt - start) / 1000, reason: alert.reason });
  });
  return { opened, closed };
}

const repeat = (value: boolean, seconds: number) => Array.from({ length: seconds }, () => value);

/** A deterministic pseudo-random sequence (a recorded noisy signal), bad with probability `p`. */
function noisy(seconds: number, p: number, seed = 7): boolean[] {
  let state = seed;
  return Array.from({ length: seconds }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31 < p;
  });
}

describe("AlertEngine", () => {
  it("opens once the condition has held for the hold time, not before", () => {
    const { opened, closed } = drive(engine(), repeat(true, 120));
    expect(opened).toEqual([60]);
    expect(closed).toEqual([]);
  });

  it("does not open for a condition shorter than the hold time", () => {
    const { opened } = drive(engine(), [...repeat(true, 59), ...repeat(false, 120)]);
    expect(opened).toEqual([]);
  });

  it("closes when the condition stayed away for the clear time", () => {
    const { opened, closed } = drive(engine(), [...repeat(true, 100), ...repeat(false, 60)]);
    expect(opened).toEqual([60]);
    expect(closed).toEqual([{ at: 130, reason: "cleared" }]);
  });

  it("does not flap on a signal that hovers around its threshold", () => {
    // Bad 70 % of the seconds for an hour, then good: one alert, closed once.
    const { opened, closed } = drive(engine(), [...noisy(3600, 0.7), ...repeat(false, 60)]);
    expect(opened).toHaveLength(1);
    expect(opened[0]).toBeLessThan(90);
    expect(closed).toEqual([{ at: 3630, reason: "cleared" }]);
  });

  it("does not open on short blips in a mostly good signal", () => {
    // One bad second every 30 s: each good spell outlasts the tolerance.
    const blips = Array.from({ length: 3600 }, (_, second) => second % 30 === 0);
    expect(drive(engine(), blips).opened).toEqual([]);
  });

  it("starts the hold again after a good spell longer than the tolerance", () => {
    // 40 s bad, 20 s good (more than a quarter of the hold), 60 s bad: opens at 60 + 60.
    const { opened } = drive(engine(), [...repeat(true, 40), ...repeat(false, 20), ...repeat(true, 70)]);
    expect(opened).toEqual([120]);
  });

  it("freezes a subject whose scope is not observed, and drops it when unobserved for too long", () => {
    const subject = engine(HOLD, CLEAR, 120_000);
    // Open at 60 s; the host goes silent from 100 s: no close while frozen, then closed as not observed.
    const { opened, closed } = drive(subject, repeat(true, 400), { observed: (second) => second < 100 });
    expect(opened).toEqual([60]);
    expect(closed).toEqual([{ at: 219, reason: "not observed" }]);
  });

  it("keeps a restored alert open while its condition holds, and closes it when it clears", () => {
    const subject = engine();
    subject.restore([{ key: "conflict:GPU-1:r1", kind: "conflict", scope: SCOPE, openedAt: -3_600_000 }], 0);
    expect(subject.isOpen("conflict:GPU-1:r1")).toBe(true);
    const { opened, closed } = drive(subject, [...repeat(true, 30), ...repeat(false, 40)]);
    expect(opened).toEqual([]);
    expect(closed).toEqual([{ at: 60, reason: "cleared" }]);
  });

  it("opens at once with a hold time of zero", () => {
    expect(drive(engine(0, 0), [false, true, false]).opened).toEqual([1]);
  });
});
