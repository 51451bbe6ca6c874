import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { E2E_DATA_DIR, E2E_PORT } from "../playwright.config";

export const E2E_ORIGIN = `http://127.0.0.1:${E2E_PORT}`;

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = path.join(root, "bin", "gpudesk.js");

/** Runs a gpudesk command against the e2e server's database, as an operator would on that machine. */
export function gpudesk(args: string[], timeoutMs = 60_000): { stdout: string; stderr: string; status: number | null } {
  const result = spawnSync(process.execPath, [cli, ...args], {
    cwd: root,
    env: { ...process.env, GPUDESK_DATA_DIR: E2E_DATA_DIR },
    encoding: "utf8",
    timeout: timeoutMs,
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

/**
 * The recorded H200 host for the fake nvidia-smi (FAKE_NVIDIA_SMI_DIR), with a
 * GPU UUID of its own and no processes: agents that replay the same recording
 * would otherwise report one GPU from several hosts. Idle, as an idle H100
 * reads (0 MiB used, 0 %): memory held with no process listed is someone's
 * job nvidia-smi cannot see, and would make the GPU in use. `reading` sets
 * other values.
 */
export function ownH200Fixture(reading: { memoryUsedMiB: number; utilizationPct: number } = { memoryUsedMiB: 0, utilizationPct: 0 }): string {
  const source = path.join(root, "server", "collector", "fixtures", "h200-driver-580");
  const dir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-e2e-h200-"));
  cpSync(source, dir, { recursive: true });
  const uuid = `GPU-${randomUUID()}`;
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    writeFileSync(file, readFileSync(file, "utf8").replaceAll("GPU-ef2803ab-ed44-fce3-aa80-5f09cb377b2d", uuid));
  }
  cpSync(path.join(dir, "query-compute-apps__idle.csv"), path.join(dir, "query-compute-apps__load.csv"));
  setGpuReading(dir, reading);
  return dir;
}

/** Rewrites the recorded memory.used and utilization.gpu of every GPU in a fake nvidia-smi directory; the fake reads it again each tick. */
export function setGpuReading(dir: string, reading: { memoryUsedMiB: number; utilizationPct: number }): void {
  const file = path.join(dir, "query-gpu__load.csv");
  const lines = readFileSync(file, "utf8").split("\n");
  const header = lines.findIndex((line) => line.startsWith("index, "));
  const names = lines[header]!.split(", ");
  const used = names.indexOf("memory.used [MiB]");
  const util = names.indexOf("utilization.gpu [%]");
  const rows = lines.map((line, at) => {
    if (at <= header || line.trim() === "" || line.startsWith("# ")) return line;
    const cells = line.split(", ");
    cells[used] = `${reading.memoryUsedMiB} MiB`;
    cells[util] = `${reading.utilizationPct} %`;
    return cells.join(", ");
  });
  writeFileSync(file, rows.join("\n"));
}

let counter = 0;
export function uniqueHostName(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

export interface TestUser {
  username: string;
  password: string;
}

/**
 * Creates an account with the CLI, as an admin would on the server; with
 * `unixLogin`, the person whose processes on the hosts run as that login
 * (taking over a demo person of the simulated fleet who has it).
 */
export function createUser(prefix: string, options: { admin?: boolean; name?: string; unixLogin?: string } = {}): TestUser {
  const username = `${prefix}${Date.now().toString(36)}${(counter += 1)}`.toLowerCase().replace(/[^a-z0-9_.]/g, "");
  const password = `pw-${username}-long-enough`;
  const flags = [
    ...(options.admin ? ["--admin"] : []),
    ...(options.name ? ["--name", options.name] : []),
    ...(options.unixLogin ? ["--unix-login", options.unixLogin, "--take-over-demo"] : []),
  ];
  const result = spawnSync(process.execPath, [cli, "user", "add", username, "--password-stdin", ...flags], {
    cwd: root,
    env: { ...process.env, GPUDESK_DATA_DIR: E2E_DATA_DIR },
    input: password,
    encoding: "utf8",
    timeout: 60_000,
  });
  if (result.status !== 0) throw new Error(`gpudesk user add failed: ${result.stderr}`);
  return { username, password };
}

let sharedMember: TestUser | undefined;
let sharedAdmin: TestUser | undefined;

/** One member and one admin per test run (the CLI takes a few seconds per call). */
export function member(): TestUser {
  sharedMember ??= createUser("member");
  return sharedMember;
}

export function admin(): TestUser {
  sharedAdmin ??= createUser("admin", { admin: true });
  return sharedAdmin;
}

/** Signs the page's browser context in through the API (sets the session cookie), as the sign-in form would. */
export async function signIn(page: import("@playwright/test").Page, user: TestUser): Promise<void> {
  const response = await page.request.post("/api/auth/sign-in/username", {
    data: { username: user.username, password: user.password },
    headers: { origin: E2E_ORIGIN },
  });
  if (!response.ok()) throw new Error(`sign-in failed: ${response.status()} ${await response.text()}`);
}

/**
 * Gives back everything a test person holds or waits for: current bookings
 * are released and waiting requests withdrawn. Specs share one server and
 * one fleet, so they call this in `finally` (or afterEach): a spec that fails
 * halfway must not leave GPUs booked for the next one to trip over.
 */
export async function releaseEverything(request: import("@playwright/test").APIRequestContext, token: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}` };
  const waitlist = await request.get("/api/v1/waitlist?mine=1", { headers });
  if (waitlist.ok()) {
    for (const entry of ((await waitlist.json()) as { waiting: { id: string; status: string }[] }).waiting) {
      if (entry.status === "waiting") await request.delete(`/api/v1/waitlist/${entry.id}`, { headers });
    }
  }
  const current = await request.get("/api/v1/reservations?state=current", { headers });
  if (!current.ok()) return;
  for (const booking of ((await current.json()) as { reservations: { id: string }[] }).reservations) {
    await request.post(`/api/v1/reservations/${booking.id}/release`, { headers });
  }
}
