import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { productionBuildProblem } from "@/server/core/build";
import { backdateBooking } from "@/server/idle-release/backdate-idle";
import { repoRoot } from "@/server/core/paths";
import { testDatabaseProvider } from "@/server/testing/test-db";

/*
 * A real `gpudesk serve` restarted in the middle of a booking's idle window:
 * the release still comes on time, because the idle clock is derived from
 * the stored minute rollups and the warning's claim in the booking's row,
 * not from memory. An agent fed by the fake nvidia-smi reports an idle GPU
 * throughout (and reconnects to the new server by itself). The first idle
 * minutes are stored by this test, a second process on the server's
 * database (backdateBooking), rather than waited for: the window is 4
 * minutes, 3 are stored, the restart comes in the warning, and the last
 * minute is read live by the new server. SQLite only: the point is the
 * process, not the database. The server is the production build made
 * before the tests (`npm test` builds first).
 */

const PORT = 3441;
const RELEASE_AFTER = 4;
const STORED_IDLE = 3;
const URL_BASE = `http://127.0.0.1:${PORT}`;
const cli = path.join(repoRoot, "bin", "gpudesk.js");
const dataDir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-idle-restart-"));
// This process writes the stored minutes into the server's own database.
process.env.GPUDESK_DATA_DIR = dataDir;
const env = { GPUDESK_DATA_DIR: dataDir, PORT: String(PORT), HOST: "127.0.0.1", GPUDESK_LOCAL_AGENT: "off", GPUDESK_ROLLUP_FLUSH_SECONDS: "5", GPUDESK_OFFLINE_AFTER_MS: "3000" };
const children: ChildProcess[] = [];
const output: string[] = [];

function run(args: string[], input?: string): string {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: repoRoot, env: { ...process.env, ...env }, input, encoding: "utf8", timeout: 120_000 });
  if (result.status !== 0) throw new Error(`gpudesk ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout.trim();
}

function start(args: string[], extra: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [cli, ...args], { cwd: repoRoot, env: { ...process.env, ...env, ...extra }, stdio: ["ignore", "pipe", "pipe"] });
  for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (chunk: Buffer) => output.push(...chunk.toString().split("\n").filter(Boolean)));
  children.push(child);
  return child;
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined>, deadlineMs: number): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null && value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; server said:\n${output.slice(-40).join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

const serving = () => until("the server", async () => ((await fetch(`${URL_BASE}/api/health`, { signal: AbortSignal.timeout(3000) })).ok ? true : null), 300_000);

/** The recorded H200 with a UUID of its own, idle (0 MiB, 0 %), for the fake nvidia-smi. */
function idleH200(): string {
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

async function api<T>(token: string, method: string, url: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${URL_BASE}${url}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as T };
}

interface Booking {
  id: string;
  state: string;
  releasedBecause: string | null;
  endsAt: string;
  idle: { phase: string; idleSince: string; idleMinutes: number } | null;
}

describe.skipIf(testDatabaseProvider() !== "sqlite")("idle release across a server restart", () => {
  beforeAll(() => {
    const problem = productionBuildProblem(repoRoot);
    if (problem) throw new Error(`this test runs the built server, and ${problem}`);
  });

  afterAll(() => {
    for (const child of children) child.kill("SIGKILL");
  });

  it("a booking idle before and after the restart is released on time", async () => {
    let server = start(["serve"]);
    await serving();
    run(["user", "add", "idleadmin", "--password-stdin", "--admin"], "pw-idleadmin-long-enough");
    run(["user", "add", "idlebooker", "--password-stdin"], "pw-idlebooker-long-enough");
    const adminToken = run(["token", "create", "--user", "idleadmin", "--label", "restart test"]);
    const bookerToken = run(["token", "create", "--user", "idlebooker", "--label", "restart test"]);
    const hostToken = run(["host", "add", "idle-restart-host"]);
    start(["agent", "--server", URL_BASE, "--nvidia-smi", path.join(repoRoot, "scripts", "fake-nvidia-smi.mjs"), "--host-name", "idle-restart-host"], {
      GPUDESK_AGENT_TOKEN: hostToken,
      FAKE_NVIDIA_SMI_DIR: idleH200(),
      FAKE_NVIDIA_SMI_VARY: "0",
    });
    const policy = await api(adminToken, "PUT", "/api/v1/policies", { maxDurationMinutes: 10080, maxGpusPerUser: 8, maxAdvanceDays: 30, idleReleaseAfterMinutes: RELEASE_AFTER, idleWarningMinutes: 1 });
    expect(policy.status).toBe(200);
    const booking = await until("the booking", async () => {
      const made = await api<Booking>(bookerToken, "POST", "/api/v1/reservations", { host: "idle-restart-host", gpus: [0], durationMinutes: 60, purpose: "idle across a restart" });
      return made.status === 201 ? made.body : null;
    }, 120_000);

    // Three idle minutes are stored before the restart, one to go: the server reads them and warns.
    const startsAt = await backdateBooking(booking.id, STORED_IDLE, new Date(), { reading: { utilPct: 0, memUsedMiB: 0 } });
    const before = await until("the warning before the restart", async () => {
      const view = (await api<Booking>(bookerToken, "GET", `/api/v1/reservations/${booking.id}`)).body;
      return view.idle?.phase === "warning" ? view : null;
    }, 120_000);
    const idleSinceMs = Date.parse(before.idle!.idleSince);
    expect(idleSinceMs).toBe(startsAt.getTime());

    // The restart, in the middle of the window.
    const stoppedAt = Date.now();
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
    server = start(["serve"]);
    await serving();
    const downMs = Date.now() - stoppedAt;

    const released = await until("the release", async () => {
      const view = (await api<Booking>(bookerToken, "GET", `/api/v1/reservations/${booking.id}`)).body;
      return view.state === "released" ? view : null;
    }, 300_000);
    expect(released.releasedBecause).toBe("idle");
    const dueMs = idleSinceMs + RELEASE_AFTER * 60_000;
    const releasedAtMs = Date.parse(released.endsAt);
    expect(releasedAtMs).toBeGreaterThanOrEqual(dueMs);
    // On time: late by at most the minutes the server was away (without readings, they pause the clock) and a
    // pass. A clock kept in memory would have started again at the restart: three idle minutes later still.
    expect(releasedAtMs - dueMs).toBeLessThan(downMs + 75_000);
  }, 600_000);
});
