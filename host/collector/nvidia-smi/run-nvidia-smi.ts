import { spawn } from "node:child_process";
import { type LostGpu, splitLostGpus } from "@/host/collector/nvidia-smi/lost-gpus";

export type NvidiaSmiErrorCode =
  /** The binary is missing or not executable. */
  | "not-found"
  /** It ran and failed (no driver, no devices, killed …). */
  | "failed"
  | "timeout"
  /** The driver does not know one of the queried fields. */
  | "invalid-field"
  /** It answered, but nothing usable came out. */
  | "no-data";

/** Every failure of the nvidia-smi source; `message` is safe to show to an operator. */
export class NvidiaSmiError extends Error {
  override readonly name = "NvidiaSmiError";
  constructor(
    readonly code: NvidiaSmiErrorCode,
    message: string,
    /** For `invalid-field`: the field nvidia-smi named, when it named one. */
    readonly field: string | null = null,
  ) {
    super(message);
  }
}

// Linux prints straight quotes, Windows builds print typographic ones.
const INVALID_FIELD = /Field\s+["“]([^"”]+)["”]\s+is not a valid field to query/;

/** The field named in an "is not a valid field to query" message, "" when the message names none, null when absent. */
export function findInvalidField(output: string): string | null {
  const match = INVALID_FIELD.exec(output);
  if (match) return match[1];
  return /is not a valid field to query/.test(output) ? "" : null;
}

/** First non-empty line of an output, shortened, for error messages. */
export function firstLine(output: string): string {
  const line = output.split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** The error for a child that could not start (`spawn`'s "error" event). */
export function spawnError(path: string, error: NodeJS.ErrnoException): NvidiaSmiError {
  if (error.code === "ENOENT") return new NvidiaSmiError("not-found", `nvidia-smi not found at ${path}`);
  if (error.code === "EACCES") return new NvidiaSmiError("not-found", `nvidia-smi at ${path} is not executable`);
  return new NvidiaSmiError("failed", `nvidia-smi at ${path} could not start: ${error.message}`);
}

/** "nvidia-smi --query-gpu" for a command line, without the long field list. */
export function describeCommand(args: readonly string[]): string {
  return `nvidia-smi ${(args[0] ?? "").split("=")[0]}`.trim();
}

/** The error for a child that ended unsuccessfully, from its exit and what it printed. */
export function exitError(args: readonly string[], code: number | null, signal: string | null, output: string): NvidiaSmiError {
  const what = describeCommand(args);
  const field = findInvalidField(output);
  if (field !== null) {
    return new NvidiaSmiError("invalid-field", `${what}: ${firstLine(output)}`, field || null);
  }
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  const said = firstLine(output);
  return new NvidiaSmiError("failed", said ? `${what} ${how}: ${said}` : `${what} ${how}`);
}

const MAX_OUTPUT_BYTES = 32 * 1024 * 1024;

/**
 * Runs nvidia-smi once and resolves with its stdout. Rejects with an
 * NvidiaSmiError when it cannot start, times out, exits non-zero or refuses a
 * field (which some builds do with exit code 0).
 *
 * GPUs that fell off the bus are the exception: nvidia-smi then names each in
 * a line of its own and exits non-zero (15) although it reported the others.
 * Those lines are taken out of the output and handed to `onLost`, and the
 * rest resolves, so that one lost GPU does not cost the host its reading.
 */
export function runNvidiaSmi(
  path: string,
  args: readonly string[],
  timeoutMs: number,
  onLost?: (lost: LostGpu[]) => void,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(path, args, { stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let size = 0;
    let settled = false;
    let timedOut = false;
    const finish = (error: NvidiaSmiError | null, value = "") => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(value);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
      // Answer now: a grandchild holding the pipes open would delay "close" indefinitely.
      child.stdout.destroy();
      child.stderr.destroy();
      finish(new NvidiaSmiError("timeout", `${describeCommand(args)} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT_BYTES) {
        child.kill("SIGKILL");
        return;
      }
      into.push(chunk);
    };
    child.stdout.on("data", collect(stdout));
    child.stderr.on("data", collect(stderr));
    child.on("error", (error) => finish(spawnError(path, error)));
    child.on("close", (code, signal) => {
      const out = Buffer.concat(stdout).toString("utf8");
      const all = `${out}\n${Buffer.concat(stderr).toString("utf8")}`;
      if (timedOut) {
        return;
      } else if (size > MAX_OUTPUT_BYTES) {
        finish(new NvidiaSmiError("failed", `${describeCommand(args)} printed more than ${MAX_OUTPUT_BYTES} bytes`));
      } else if (findInvalidField(all) !== null) {
        finish(exitError(args, code, signal, all));
      } else {
        const { lost, rest } = splitLostGpus(out);
        if (code !== 0 && (lost.length === 0 || signal !== null)) {
          finish(exitError(args, code, signal, all));
          return;
        }
        onLost?.(lost);
        finish(null, rest);
      }
    });
  });
}
