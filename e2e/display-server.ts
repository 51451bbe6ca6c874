import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A gpudesk server of its own for the wall-display specs and the soak
 * script: a fleet size the shared e2e server does not run, or a server a
 * test may stop and start again. Plain Node (no Playwright imports), so
 * that `npx tsx scripts/soak-display.ts` can use it too.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = path.join(root, "bin", "gpudesk.js");

export interface DisplayServerOptions {
  /** Simulated GPUs; omitted, the 14-GPU demo fleet. */
  gpus?: number;
  /** Agents sample this often (100 ms at least); the server's tick stays at 1 s. */
  sampleIntervalMs?: number;
  /** Reuse a data directory (a restart keeps the database and the display tokens). */
  dataDir?: string;
  port?: number;
  /** More environment for the server (e2e/sso.spec.ts: its single sign-on settings). */
  env?: Record<string, string>;
}

export interface DisplayServer {
  url: string;
  port: number;
  dataDir: string;
  /** Stops the process (SIGTERM, as a service manager would) and waits for it to exit. */
  stop: () => Promise<void>;
  /** Starts it again on the same port and data directory. */
  restart: () => Promise<void>;
  /** Stops it and removes the data directory. */
  dispose: () => Promise<void>;
}

function listensOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      const bound = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A port nobody listens on: any the system gives, or, where several people
 * share one machine and each keeps to a range of ports, the first free one
 * of E2E_OWN_PORTS ("5230-5260").
 */
export async function freePort(): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.E2E_OWN_PORTS ?? "");
  if (!range) return listensOn(0);
  for (let port = Number(range[1]); port <= Number(range[2]); port++) {
    const bound = await listensOn(port).catch(() => null);
    if (bound !== null) return bound;
  }
  throw new Error(`no free port in E2E_OWN_PORTS=${process.env.E2E_OWN_PORTS}`);
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gpudesk serve exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`gpudesk serve did not answer on ${url} within ${timeoutMs} ms:\n${output()}`);
}

/** Starts `gpudesk serve` with the simulated fleet; resolves once /api/health answers. */
export async function startDisplayServer(options: DisplayServerOptions = {}): Promise<DisplayServer> {
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), "gpudesk-display-"));
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;

  const start = async () => {
    let log = "";
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      GPUDESK_DATA_DIR: dataDir,
      GPUDESK_LOCAL_AGENT: "simulated",
      GPUDESK_OFFLINE_AFTER_MS: "3000",
      // A demo server, never asked "demo or lab?" (e2e/demo-to-lab.spec.ts asks with GPUDESK_DEMO=ask).
      GPUDESK_DEMO: "keep",
      ...options.env,
    };
    delete env.DATABASE_URL;
    if (options.gpus !== undefined) env.GPUDESK_SIM_GPUS = String(options.gpus);
    if (options.sampleIntervalMs !== undefined) env.GPUDESK_SAMPLE_INTERVAL_MS = String(options.sampleIntervalMs);
    const spawned = spawn(process.execPath, [cli, "serve"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    const keep = (chunk: Buffer) => {
      // The last few kilobytes are enough to tell why a start failed.
      log = (log + chunk.toString()).slice(-8_000);
    };
    spawned.stdout?.on("data", keep);
    spawned.stderr?.on("data", keep);
    child = spawned;
    // The first start after a source change builds the app: minutes on a small machine.
    await waitForHealth(url, spawned, () => log, 300_000);
  };

  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill("SIGTERM");
    const timer = setTimeout(() => running.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  };

  await start();
  return {
    url,
    port,
    dataDir,
    stop,
    restart: start,
    async dispose() {
      await stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Registers a wall display in that server's database with the CLI and returns its token. */
export function createDisplayToken(dataDir: string, name = `wall-${Date.now().toString(36)}`): string {
  const env: NodeJS.ProcessEnv = { ...process.env, GPUDESK_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  const result = spawnSync(process.execPath, [cli, "display", "add", name], {
    cwd: root,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  const token = result.stdout.trim();
  if (result.status !== 0 || !token.startsWith("gpd_disp_")) {
    throw new Error(`gpudesk display add failed (${result.status}): ${result.stderr}`);
  }
  return token;
}

/** Adds a member to that server's database with the CLI (`gpudesk user add`), for a spec that signs in there. */
export function addPerson(dataDir: string, person: { username: string; password: string }): void {
  const env: NodeJS.ProcessEnv = { ...process.env, GPUDESK_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  const added = spawnSync(process.execPath, [cli, "user", "add", person.username, "--password-stdin"], {
    cwd: root,
    env,
    input: person.password,
    encoding: "utf8",
    timeout: 60_000,
  });
  if (added.status !== 0) throw new Error(`gpudesk user add failed: ${added.stderr}`);
}
