import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { productionBuildProblem } from "@/server/core/build";
import { repoRoot } from "@/server/core/paths";

/**
 * A real `gpudesk serve` (the production build made before the tests) and
 * its CLI, in a data directory of their own, for the few tests whose point
 * is the process: a restart in the middle of something. Every child it
 * starts is killed by `stopAll()`; what the children print is kept for the
 * error of a wait that times out.
 */
export function realServer(options: { port: number; dataDirPrefix: string; env?: Record<string, string> }) {
  const url = `http://127.0.0.1:${options.port}`;
  const cli = path.join(repoRoot, "bin", "gpudesk.js");
  const dataDir = mkdtempSync(path.join(os.tmpdir(), options.dataDirPrefix));
  const env = { GPUDESK_DATA_DIR: dataDir, PORT: String(options.port), HOST: "127.0.0.1", GPUDESK_LOCAL_AGENT: "off", ...options.env };
  const children: ChildProcess[] = [];
  const output: string[] = [];

  /** A CLI command to its end; its standard output. */
  function run(args: string[], input?: string): string {
    const result = spawnSync(process.execPath, [cli, ...args], { cwd: repoRoot, env: { ...process.env, ...env }, input, encoding: "utf8", timeout: 120_000 });
    if (result.status !== 0) throw new Error(`gpudesk ${args.join(" ")} failed: ${result.stderr}`);
    return result.stdout.trim();
  }

  /** A long-running gpudesk command (serve, agent). */
  function start(args: string[], extra: Record<string, string> = {}): ChildProcess {
    const child = spawn(process.execPath, [cli, ...args], { cwd: repoRoot, env: { ...process.env, ...env, ...extra }, stdio: ["ignore", "pipe", "pipe"] });
    for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (chunk: Buffer) => output.push(...chunk.toString().split("\n").filter(Boolean)));
    children.push(child);
    return child;
  }

  /** Polls `probe` once a second until it answers something; the deadline only bounds a hung test. */
  async function until<T>(what: string, probe: () => Promise<T | null | undefined>, deadlineMs: number): Promise<T> {
    const end = Date.now() + deadlineMs;
    for (;;) {
      const value = await probe().catch(() => null);
      if (value !== null && value !== undefined) return value;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; the server said:\n${output.slice(-40).join("\n")}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  async function api<T>(token: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${url}${route}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as T };
  }

  return {
    url,
    dataDir,
    run,
    start,
    until,
    api,
    /** Throws when there is no production build to run (`npm test` builds first). */
    requireBuild(): void {
      const problem = productionBuildProblem(repoRoot);
      if (problem) throw new Error(`this test runs the built server, and ${problem}`);
    },
    /** Starts `gpudesk serve` and waits until it answers its health check. */
    async serve(): Promise<ChildProcess> {
      const server = start(["serve"]);
      await until("the server", async () => ((await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(3000) })).ok ? true : null), 300_000);
      return server;
    },
    /** Ends a child with `signal` and waits for it to be gone. */
    async stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill(signal);
      await exited;
    },
    stopAll(): void {
      for (const child of children) child.kill("SIGKILL");
    },
  };
}

/** The recorded H200 (one GPU) with a UUID of its own, idle (0 MiB, 0 %), for the fake nvidia-smi. */
export function idleH200Fixture(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-idle-h200-"));
  cpSync(path.join(repoRoot, "host", "collector", "fixtures", "h200-driver-580"), dir, { recursive: true });
  const uuid = `GPU-${randomUUID()}`;
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    writeFileSync(file, readFileSync(file, "utf8").replaceAll("GPU-ef2803ab-ed44-fce3-aa80-5f09cb377b2d", uuid));
  }
  cpSync(path.join(dir, "query-compute-apps__idle.csv"), path.join(dir, "query-compute-apps__load.csv"));
  const file = path.join(dir, "query-gpu__load.csv");
  const lines = readFileSync(file, "utf8").split("\n");
  const header = lines.findIndex((line) => line.startsWith("index, "));
  const names = lines[header]!.split(", ");
  writeFileSync(
    file,
    lines
      .map((line, at) => {
        if (at <= header || line.trim() === "" || line.startsWith("# ")) return line;
        const cells = line.split(", ");
        cells[names.indexOf("memory.used [MiB]")] = "0 MiB";
        cells[names.indexOf("utilization.gpu [%]")] = "0 %";
        return cells.join(", ");
      })
      .join("\n"),
  );
  return dir;
}

/** The fake nvidia-smi (scripts/fake-nvidia-smi.mjs), for an agent started with `--nvidia-smi`. */
export const FAKE_NVIDIA_SMI = path.join(repoRoot, "scripts", "fake-nvidia-smi.mjs");
