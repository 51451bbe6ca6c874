import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { createUser, E2E_ORIGIN, gpudesk } from "./helpers";

/**
 * `gpudesk run` against the real server: it books, hands the GPUs to the
 * child in its environment, passes the child's exit code through and gives
 * the booking back however the child ends.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = path.join(root, "bin", "gpudesk.js");

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `gpudesk run` as a person would on a GPU host; `onOutput` sees stdout as it comes. */
function gpudeskRun(token: string, childScript: string, onOutput?: (stdout: string, cliPid: number) => void): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "run", "-n", "1", "--for", "1h", "--host", "sim-4090-a", "--purpose", "e2e cli", "--", process.execPath, "-e", childScript], {
      cwd: root,
      env: { ...process.env, GPUDESK_URL: E2E_ORIGIN, GPUDESK_TOKEN: token, CUDA_VISIBLE_DEVICES: "", GPUDESK_RESERVATION: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      onOutput?.(stdout, child.pid ?? 0);
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** What the child printed about its environment. */
function childEnv(stdout: string): { CUDA_VISIBLE_DEVICES: string; GPUDESK_RESERVATION: string; CUDA_DEVICE_ORDER: string } {
  const line = stdout.split("\n").find((candidate) => candidate.startsWith("ENV "));
  if (!line) throw new Error(`the child printed no environment: ${stdout}`);
  return JSON.parse(line.slice(4));
}

const PRINT_ENV = `console.log("ENV " + JSON.stringify({ CUDA_VISIBLE_DEVICES: process.env.CUDA_VISIBLE_DEVICES, GPUDESK_RESERVATION: process.env.GPUDESK_RESERVATION, CUDA_DEVICE_ORDER: process.env.CUDA_DEVICE_ORDER }));`;

async function reservationState(request: APIRequestContext, token: string, id: string): Promise<string | undefined> {
  const response = await request.get("/api/v1/reservations?state=all", { headers: { authorization: `Bearer ${token}` } });
  expect(response.ok()).toBe(true);
  const { reservations } = (await response.json()) as { reservations: { id: string; state: string }[] };
  return reservations.find((reservation) => reservation.id === id)?.state;
}

let token = "";

test.beforeAll(() => {
  const person = createUser("cli");
  const created = gpudesk(["token", "create", "--user", person.username, "--label", "e2e cli"]);
  expect(created.status, created.stderr).toBe(0);
  token = created.stdout.trim();
  expect(token).toMatch(/^gpd_pat_/);
});

test("gpudesk run gives the child its GPUs, passes its exit code through and releases the booking", async ({ request }) => {
  test.setTimeout(120_000);
  const result = await gpudeskRun(token, `${PRINT_ENV} process.exit(3);`);
  expect(result.code, result.stderr).toBe(3);

  const env = childEnv(result.stdout);
  expect(env.CUDA_VISIBLE_DEVICES).toMatch(/^[01]$/);
  expect(env.CUDA_DEVICE_ORDER).toBe("PCI_BUS_ID");
  expect(env.GPUDESK_RESERVATION).not.toBe("");
  expect(result.stderr).toContain(`released ${env.GPUDESK_RESERVATION}`);
  expect(await reservationState(request, token, env.GPUDESK_RESERVATION)).toBe("released");
});

test("gpudesk run releases the booking when the child is killed by a signal", async ({ request }) => {
  test.setTimeout(120_000);
  const result = await gpudeskRun(token, `${PRINT_ENV} process.kill(process.pid, "SIGTERM"); setTimeout(() => {}, 60000);`);
  expect(result.code, result.stderr).toBe(128 + 15);
  const env = childEnv(result.stdout);
  expect(await reservationState(request, token, env.GPUDESK_RESERVATION)).toBe("released");
});

test("gpudesk run forwards SIGTERM to the child and still releases the booking", async ({ request }) => {
  test.setTimeout(120_000);
  let signalled = false;
  const result = await gpudeskRun(token, `${PRINT_ENV} setInterval(() => {}, 1000);`, (stdout, cliPid) => {
    if (!signalled && stdout.includes("ENV ")) {
      signalled = true;
      process.kill(cliPid, "SIGTERM");
    }
  });
  expect(signalled).toBe(true);
  expect(result.code, result.stderr).toBe(128 + 15);
  const env = childEnv(result.stdout);
  expect(await reservationState(request, token, env.GPUDESK_RESERVATION)).toBe("released");
});

test("gpudesk prints the server's message and exits non-zero when the booking is refused", () => {
  const result = gpudeskWithToken(["reserve", "-n", "64", "--host", "sim-4090-a", "--for", "1h"]);
  expect(result.status).not.toBe(0);
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  expect(result.stderr).toMatch(/^gpudesk: /);
});

/** A gpudesk client command with the test person's token. */
function gpudeskWithToken(args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { cwd: root, env: { ...process.env, GPUDESK_URL: E2E_ORIGIN, GPUDESK_TOKEN: token }, encoding: "utf8", timeout: 60_000 });
}

test("gpudesk reserve --wait queues while the GPUs are taken and is granted when they are released", async ({ request }) => {
  test.setTimeout(120_000);
  const other = createUser("holder");
  const otherToken = gpudesk(["token", "create", "--user", other.username]).stdout.trim();
  const auth = (bearer: string) => ({ authorization: `Bearer ${bearer}` });
  const held = await request.post("/api/v1/reservations", {
    headers: auth(otherToken),
    data: { host: "sim-4090-a", gpus: [0, 1], durationMinutes: 60, purpose: "holds the host", allowBusy: true },
  });
  expect(held.status(), await held.text()).toBe(201);
  const holding = (await held.json()) as { id: string };

  const waiting = spawn(process.execPath, [cli, "reserve", "-n", "1", "--host", "sim-4090-a", "--for", "30m", "--wait", "--json"], {
    cwd: root,
    env: { ...process.env, GPUDESK_URL: E2E_ORIGIN, GPUDESK_TOKEN: token },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  waiting.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  waiting.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => waiting.on("close", resolve));

  await expect.poll(() => stderr, { timeout: 60_000 }).toContain("waiting for GPUs");
  const queue = await request.get("/api/v1/waitlist", { headers: auth(token) });
  expect(((await queue.json()) as { waiting: unknown[] }).waiting.length).toBeGreaterThan(0);

  const released = await request.post(`/api/v1/reservations/${holding.id}/release`, { headers: auth(otherToken) });
  expect(released.ok()).toBe(true);
  expect(await exited, stderr).toBe(0);
  const granted = JSON.parse(stdout) as { id: string; host: { name: string }; state: string };
  expect(granted.host.name).toBe("sim-4090-a");
  expect(granted.state).toBe("active");
  expect((await request.post(`/api/v1/reservations/${granted.id}/release`, { headers: auth(token) })).ok()).toBe(true);
});
