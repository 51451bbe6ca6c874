import { describe, expect, it } from "vitest";
import { assessIdle, idlePhase, MINUTE_MS, type MinuteReading } from "@/server/bookings/rules/idle-rule";

const T0 = Date.parse("2026-12-01T12:00:00Z");
const m = (minute: number) => T0 + minute * MINUTE_MS;

/** Readings of `uuids`, one per minute in [from, to), at `util` (a function of the minute for variety). */
function readings(uuids: string[], from: number, to: number, util: number | ((minute: number, uuid: string) => number | null)): MinuteReading[] {
  const out: MinuteReading[] = [];
  for (let minute = from; minute < to; minute += 1) {
    for (const uuid of uuids) out.push({ gpuUuid: uuid, minuteMs: m(minute), utilMax: typeof util === "number" ? util : util(minute, uuid) });
  }
  return out;
}

const assess = (gpuUuids: string[], rows: MinuteReading[], nowMinute: number, clockFromMinute = 0, belowPct = 5) =>
  assessIdle({ gpuUuids, clockFromMs: m(clockFromMinute), readings: rows, belowPct, nowMs: m(nowMinute) });

describe("the idle rule", () => {
  it("counts minutes whose every reading is below the threshold, from the booking's start", () => {
    const result = assess(["a"], readings(["a"], 0, 90, 4), 90);
    expect(result).toEqual({ idleSinceMs: m(0), idleMinutes: 90, lastCountedMs: m(90) });
  });

  it("a reading at the threshold is use: the clock starts again after it", () => {
    const rows = readings(["a"], 0, 90, (minute) => (minute === 40 ? 5 : 0));
    expect(assess(["a"], rows, 90)).toEqual({ idleSinceMs: m(41), idleMinutes: 49, lastCountedMs: m(90) });
    // Below it (4.9 %) is idle.
    expect(assess(["a"], readings(["a"], 0, 90, (minute) => (minute === 40 ? 4.9 : 0)), 90).idleMinutes).toBe(90);
  });

  it("a multi-GPU booking is idle only when all its GPUs are: one busy GPU keeps the whole booking", () => {
    const rows = readings(["a", "b"], 0, 60, (_minute, uuid) => (uuid === "b" ? 80 : 0));
    expect(assess(["a", "b"], rows, 60)).toMatchObject({ idleSinceMs: null, idleMinutes: 0 });
    expect(assess(["a", "b"], readings(["a", "b"], 0, 60, 1), 60).idleMinutes).toBe(60);
  });

  it("minutes without readings pause the window: neither counted nor breaking it", () => {
    // Idle 0-30, host offline 30-70 (no rows), idle again 70-100.
    const rows = [...readings(["a"], 0, 30, 0), ...readings(["a"], 70, 100, 0)];
    expect(assess(["a"], rows, 100)).toEqual({ idleSinceMs: m(0), idleMinutes: 60, lastCountedMs: m(100) });
    // One GPU of two silent: that minute pauses too (never idle on half the evidence).
    const half = [...readings(["a", "b"], 0, 10, 0), ...readings(["a"], 10, 20, 0)];
    expect(assess(["a", "b"], half, 20).idleMinutes).toBe(10);
    // A null utilization is no reading.
    expect(assess(["a"], readings(["a"], 0, 10, () => null), 10)).toMatchObject({ idleSinceMs: null, idleMinutes: 0 });
  });

  it("memory held at 0 % is idle: only utilization is read", () => {
    // (The rows carry no memory at all: a notebook holding 29 GiB at 0 % reads as utilMax 0.)
    expect(assess(["a"], readings(["a"], 0, 30, 0), 30).idleMinutes).toBe(30);
  });

  it("a keep or an extension starts the clock again: readings before it do not count, and a minute begun before it neither", () => {
    const rows = readings(["a"], 0, 100, 0);
    expect(assess(["a"], rows, 100, 60)).toEqual({ idleSinceMs: m(60), idleMinutes: 40, lastCountedMs: m(100) });
    const midMinute = assessIdle({ gpuUuids: ["a"], clockFromMs: m(60) + 30_000, readings: rows, belowPct: 5, nowMs: m(100) });
    expect(midMinute.idleSinceMs).toBe(m(61));
  });

  it("is derived from the readings alone: the same rows after a restart give the same answer", () => {
    const rows = readings(["a"], 0, 75, 0);
    const before = assess(["a"], rows, 75);
    const shuffled = [...rows].reverse();
    expect(assess(["a"], shuffled, 75)).toEqual(before);
  });

  it("nothing is idle while a GPU is busy in readings not stored yet", () => {
    expect(assessIdle({ gpuUuids: ["a"], clockFromMs: m(0), readings: readings(["a"], 0, 200, 0), belowPct: 5, nowMs: m(200), busyNow: true }).idleSinceMs).toBeNull();
  });
});

describe("the idle phases", () => {
  const policy = { releaseAfterMinutes: 120, warningMinutes: 30 };
  it("idle, then warned 30 minutes before the release, then due at 120 idle minutes", () => {
    const at = (minutes: number) => idlePhase(assess(["a"], readings(["a"], 0, minutes, 0), minutes), policy, m(minutes));
    expect(at(89)).toEqual({ phase: "idle", releaseAtMs: m(120) });
    expect(at(90)).toEqual({ phase: "warning", releaseAtMs: m(120) });
    expect(at(120)).toEqual({ phase: "due", releaseAtMs: m(120) });
  });

  it("a pause moves the release later", () => {
    // 50 idle minutes, 30 offline, 40 idle: 90 counted at 12:00 + 120 min, so the release comes 30 minutes late.
    const rows = [...readings(["a"], 0, 50, 0), ...readings(["a"], 80, 120, 0)];
    expect(idlePhase(assess(["a"], rows, 120), policy, m(120))).toEqual({ phase: "warning", releaseAtMs: m(150) });
  });

  it("release off (0): idle is still measured (the alert), but never warned or due", () => {
    expect(idlePhase(assess(["a"], readings(["a"], 0, 500, 0), 500), { releaseAfterMinutes: 0, warningMinutes: 30 }, m(500))).toEqual({ phase: "idle", releaseAtMs: null });
  });

  it("a one-minute policy (tests, a cautious admin) works at minute resolution", () => {
    expect(idlePhase(assess(["a"], readings(["a"], 0, 1, 0), 1), { releaseAfterMinutes: 1, warningMinutes: 1 }, m(1)).phase).toBe("due");
    expect(idlePhase(assess(["a"], readings(["a"], 0, 1, 0), 1), { releaseAfterMinutes: 2, warningMinutes: 1 }, m(1)).phase).toBe("warning");
  });
});

describe("the idle rule on MIG slices (no utilization per MIG device)", () => {
  /** A slice's minutes as nvidia-smi reads one (H200 capture: 17 MiB of 33,280 idle, 16,925 MiB under a job). */
  const slice = (uuid: string, from: number, to: number, at: (minute: number) => { process: boolean; memUsedMax: number }): MinuteReading[] =>
    Array.from({ length: to - from }, (_, i) => ({ gpuUuid: uuid, minuteMs: m(from + i), utilMax: null, memTotal: 33280, ...at(from + i) }));
  const idleSlice = () => ({ process: false, memUsedMax: 17 });

  it("a slice with no process and memory at the idle threshold or below is idle; a process or memory above it is use", () => {
    const slices = new Set(["mig"]);
    expect(assessIdle({ gpuUuids: ["mig"], sliceUuids: slices, clockFromMs: m(0), readings: slice("mig", 0, 90, idleSlice), belowPct: 5, nowMs: m(90) }).idleMinutes).toBe(90);
    const withProcess = slice("mig", 0, 90, (minute) => (minute === 40 ? { process: true, memUsedMax: 16925 } : idleSlice()));
    expect(assessIdle({ gpuUuids: ["mig"], sliceUuids: slices, clockFromMs: m(0), readings: withProcess, belowPct: 5, nowMs: m(90) })).toEqual({ idleSinceMs: m(41), idleMinutes: 49, lastCountedMs: m(90) });
    // Memory held where nvidia-smi lists no process (another PID namespace): use all the same.
    const unseen = slice("mig", 0, 90, () => ({ process: false, memUsedMax: 16925 }));
    expect(assessIdle({ gpuUuids: ["mig"], sliceUuids: slices, clockFromMs: m(0), readings: unseen, belowPct: 5, nowMs: m(90) }).idleMinutes).toBe(0);
    // Read as a whole GPU (utilization only), the same minutes would count nothing: the bug of issue 37.
    expect(assessIdle({ gpuUuids: ["mig"], clockFromMs: m(0), readings: slice("mig", 0, 90, idleSlice), belowPct: 5, nowMs: m(90) }).idleMinutes).toBe(0);
  });

  it("a booking of a whole GPU and a slice is idle only while both are", () => {
    const rows = [...readings(["gpu"], 0, 90, 0), ...slice("mig", 0, 90, (minute) => (minute < 30 ? { process: true, memUsedMax: 16925 } : idleSlice()))];
    expect(assessIdle({ gpuUuids: ["gpu", "mig"], sliceUuids: new Set(["mig"]), clockFromMs: m(0), readings: rows, belowPct: 5, nowMs: m(90) })).toEqual({ idleSinceMs: m(30), idleMinutes: 60, lastCountedMs: m(90) });
  });
});
