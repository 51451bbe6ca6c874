import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { describeCommand, exitError, findInvalidField, NvidiaSmiError, spawnError } from "@/host/collector/nvidia-smi/run-nvidia-smi";

/**
 * One long-lived `nvidia-smi … -lms N` child, kept alive: its stdout lines go
 * to `onLine`, and when it exits it is started again with exponential
 * backoff. A long-lived child costs a tenth of the CPU of spawning one per
 * sample (see fixtures/h200-driver-580/polling-cost.txt), which is the reason
 * for all of this machinery.
 *
 * Logging is once per state change (failing, running again), not per
 * attempt, so a host without a driver does not fill the log.
 */

export type LoopState = "starting" | "running" | "failing" | "stopped";

export interface LoopingQueryOptions {
  path: string;
  /** Called at every (re)start, so that a changed field list takes effect. */
  args: () => string[];
  /** Returns whether the line was data; only data proves the child healthy. */
  onLine: (line: string, atMs: number) => boolean;
  /** The child refused a field; return true when `args` changed and it should restart at once. */
  onInvalidField: (error: NvidiaSmiError) => boolean;
  /**
   * A child alive this long counts as healthy even without data: the
   * compute-apps query prints nothing on a tick without processes. Without
   * it, only data proves health.
   */
  healthyAfterMs?: number;
  /** Kill a child that printed no data for this long (a hung driver call); off when undefined. */
  stallAfterMs?: number;
  log: (line: string) => void;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface LoopingQuery {
  /** "running" once the current child has proven healthy; "failing" from a failure until then. */
  state(): LoopState;
  /** Resolves once the state is no longer "starting", or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

const MAX_PARTIAL_LINE = 1024 * 1024;
const KEPT_OUTPUT = 4096;

export function startLoopingQuery(options: LoopingQueryOptions): LoopingQuery {
  const initialBackoffMs = options.initialBackoffMs ?? 1000;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  let state: LoopState = "starting";
  let child: ChildProcessByStdio<null, Readable, Readable> | null = null;
  let lastDataAt: number | null = null;
  let backoffMs = initialBackoffMs;
  let restartTimer: NodeJS.Timeout | null = null;
  let healthTimer: NodeJS.Timeout | null = null;
  let stallTimer: NodeJS.Timeout | null = null;
  let waiters: (() => void)[] = [];
  let exited: Promise<void> = Promise.resolve();

  const wake = () => {
    const pending = waiters;
    waiters = [];
    pending.forEach((resolve) => resolve());
  };

  const markHealthy = () => {
    if (state === "failing") options.log(`${describe()} is running again`);
    if (state === "starting" || state === "failing") {
      state = "running";
      backoffMs = initialBackoffMs;
      wake();
    }
  };

  const describe = () => describeCommand(options.args());

  const clearChildTimers = () => {
    if (healthTimer) clearTimeout(healthTimer);
    if (stallTimer) clearInterval(stallTimer);
    healthTimer = stallTimer = null;
  };

  const fail = (error: NvidiaSmiError) => {
    if (state !== "failing") {
      options.log(`${error.message}; restarting with backoff (up to ${maxBackoffMs / 1000} s) until it recovers`);
    }
    state = "failing";
    wake();
    restartTimer = setTimeout(launch, backoffMs);
    backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
  };

  function launch(): void {
    restartTimer = null;
    if (state === "stopped") return;
    const args = options.args();
    const started = Date.now();
    const proc = spawn(options.path, args, { stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
    child = proc;
    lastDataAt = null;
    let partial = "";
    let kept = "";
    let ended = false;
    let stalled = false;
    let resolveExited: () => void = () => {};
    exited = new Promise((resolve) => (resolveExited = resolve));

    const keep = (text: string) => {
      if (kept.length < KEPT_OUTPUT) kept += text.slice(0, KEPT_OUTPUT - kept.length);
    };
    proc.stdout.setEncoding("utf8");
    proc.stderr.setEncoding("utf8");
    proc.stdout.on("data", (chunk: string) => {
      partial += chunk;
      const lines = partial.split("\n");
      partial = lines.pop() ?? "";
      if (partial.length > MAX_PARTIAL_LINE) partial = "";
      const at = Date.now();
      for (const line of lines) {
        if (options.onLine(line.replace(/\r$/, ""), at)) {
          lastDataAt = at;
          markHealthy();
        } else {
          // Not data: most likely the reason it is about to exit.
          keep(`${line}\n`);
        }
      }
    });
    proc.stderr.on("data", keep);
    // A closed pipe must not surface as an uncaught stream error.
    proc.stdout.on("error", () => {});
    proc.stderr.on("error", () => {});

    if (options.healthyAfterMs !== undefined) healthTimer = setTimeout(markHealthy, options.healthyAfterMs);
    if (options.stallAfterMs !== undefined) {
      const limit = options.stallAfterMs;
      stallTimer = setInterval(() => {
        if (Date.now() - (lastDataAt ?? started) > limit) {
          stalled = true;
          proc.kill("SIGKILL");
        }
      }, Math.max(limit / 4, 50));
    }

    const onEnd = (error: NvidiaSmiError) => {
      if (ended) return;
      ended = true;
      clearChildTimers();
      if (child === proc) child = null;
      resolveExited();
      if (state === "stopped") return;
      if (error.code === "invalid-field" && options.onInvalidField(error)) {
        launch();
        return;
      }
      fail(error);
    };
    proc.on("error", (error) => onEnd(spawnError(options.path, error)));
    // stop() waits for the process itself, not for its pipes, which a grandchild may hold open.
    proc.on("exit", () => resolveExited());
    proc.on("close", (code, signal) => {
      if (stalled) {
        onEnd(new NvidiaSmiError("timeout", `${describeCommand(args)} printed nothing for ${options.stallAfterMs} ms`));
      } else if (code === 0 && signal === null && findInvalidField(kept + partial) === null) {
        onEnd(new NvidiaSmiError("failed", `${describeCommand(args)} exited although it was asked to loop`));
      } else {
        onEnd(exitError(args, code, signal, kept + partial));
      }
    });
  }

  launch();

  return {
    state: () => state,
    settled(timeoutMs) {
      if (state !== "starting") return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    async stop() {
      state = "stopped";
      wake();
      if (restartTimer) clearTimeout(restartTimer);
      restartTimer = null;
      clearChildTimers();
      const proc = child;
      if (!proc) return;
      const done = exited;
      proc.kill("SIGTERM");
      proc.stdout.destroy();
      proc.stderr.destroy();
      const forced = setTimeout(() => proc.kill("SIGKILL"), 2000);
      await done;
      clearTimeout(forced);
    },
  };
}
