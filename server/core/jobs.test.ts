import { afterEach, describe, expect, it, vi } from "vitest";
import { periodicJob } from "@/server/core/jobs";
import { log } from "@/server/core/log";
import { manualTimers } from "@/server/testing/manual-timers";

afterEach(() => vi.restoreAllMocks());

describe("periodicJob", () => {
  it("runs a pass at start and on every beat, never two at once; a poke during a pass makes one more", async () => {
    const timers = manualTimers();
    let inside = 0;
    let most = 0;
    let passes = 0;
    let release: () => void = () => {};
    const job = periodicJob({
      name: "test",
      everyMs: 1000,
      timers,
      run: async () => {
        inside += 1;
        most = Math.max(most, inside);
        passes += 1;
        await new Promise<void>((resolve) => (release = resolve));
        inside -= 1;
      },
    });
    const stop = job.start();
    job.poke();
    timers.fire();
    job.poke();
    release();
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await job.settled();
    expect([passes, most]).toEqual([2, 1]);
    await stop();
    timers.fire();
    job.poke();
    await job.settled();
    expect(passes).toBe(2);
  });

  it("logs a failing pass once until one succeeds, and goes on", async () => {
    const errors = vi.spyOn(log, "error").mockImplementation(() => {});
    const timers = manualTimers();
    let fail = true;
    let passes = 0;
    const job = periodicJob({ name: "flaky", everyMs: 1000, timers, run: async () => {
      passes += 1;
      if (fail) throw new Error("database down");
    } });
    const stop = job.start();
    await job.settled();
    timers.fire();
    await job.settled();
    const logged = errors.mock.calls.filter((call) => String(call.join(" ")).includes("database down")).length;
    fail = false;
    timers.fire();
    await job.settled();
    await stop();
    expect([passes, logged]).toEqual([3, 1]);
  });

  it("waits `firstAfterMs` for its first pass, and aborts the pass under way when stopped", async () => {
    const timers = manualTimers();
    const signals: AbortSignal[] = [];
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const job = periodicJob({
      name: "long",
      everyMs: 1000,
      firstAfterMs: 500,
      timers,
      run: async (signal) => {
        signals.push(signal);
        entered();
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
      },
    });
    const stop = job.start();
    await job.settled();
    expect(signals).toHaveLength(0);
    timers.fire();
    await inside;
    expect(signals[0]!.aborted).toBe(false);
    await stop();
    expect(signals.map((signal) => signal.aborted)).toEqual([true]);
  });
});
