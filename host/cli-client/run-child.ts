import { spawn } from "node:child_process";
import os from "node:os";

const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** The shell's convention: the child's code, or 128 + the signal's number when a signal ended it. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal ? os.constants.signals[signal] : undefined;
  return number === undefined ? 1 : 128 + number;
}

/**
 * Runs a command with extra environment and the terminal, forwarding
 * SIGINT, SIGTERM and SIGHUP to it, and resolves with its exit code. The
 * signal handlers stay installed afterwards (doing nothing), so that a second
 * Ctrl-C while the caller cleans up cannot kill gpudesk before the booking is
 * released.
 */
export function runChild(command: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { stdio: "inherit", env: { ...process.env, ...env } });
    let done = false;
    const forward = (signal: NodeJS.Signals) => {
      if (!done && child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    for (const signal of FORWARDED) process.on(signal, forward);
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (done) return;
      done = true;
      process.stderr.write(`gpudesk: cannot start ${command[0]}: ${error.code === "ENOENT" ? "command not found" : error.message}\n`);
      resolve(error.code === "ENOENT" ? 127 : 126);
    });
    child.on("exit", (code, signal) => {
      if (done) return;
      done = true;
      resolve(exitCodeOf(code, signal));
    });
  });
}
