import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { E2E_DATA_DIR } from "../playwright.config";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = path.join(root, "bin", "gpudesk.js");

/** Runs a gpudesk command against the e2e server's database, as an operator would on that machine. */
export function gpudesk(args: string[]): { stdout: string; stderr: string; status: number | null } {
  const result = spawnSync(process.execPath, [cli, ...args], {
    cwd: root,
    env: { ...process.env, GPUDESK_DATA_DIR: E2E_DATA_DIR },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { stdout: result.stdout, stderr: result.stderr, status: result.status };
}

/** Starts `gpudesk agent` as a separate process, fed by the fake nvidia-smi that replays recorded output. */
export function startAgent(args: string[], extraEnv: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [cli, "agent", ...args], {
    cwd: root,
    env: { ...process.env, FAKE_NVIDIA_SMI_VARY: "1", ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stderr?.on("data", (chunk: Buffer) => process.stderr.write(`[agent] ${chunk}`));
  return child;
}

export const fakeNvidiaSmi = path.join(root, "scripts", "fake-nvidia-smi.mjs");

let counter = 0;
export function uniqueHostName(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}
