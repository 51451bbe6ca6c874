import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "@playwright/test";
import { writeFakeInfiniband } from "@/server/testing/fake-infiniband";
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
 * The real H100 MIG recording (3g.40gb + 2g.20gb + 1g.10gb + 1g.10gb, three
 * processes in the 3g.40gb) with UUIDs of its own (the masked ones are all
 * zeros): GPU and slice UUIDs per run, so that agents that replay it are
 * hosts of their own.
 */
export function ownH100MigFixture(): { dir: string; slices: string[] } {
  const source = path.join(root, "host", "collector", "fixtures", "h100-mig-recording");
  const dir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-e2e-h100-mig-"));
  cpSync(source, dir, { recursive: true });
  const gpu = `GPU-${randomUUID()}`;
  const slices = [0, 1, 2, 3].map(() => `MIG-${randomUUID()}`);
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    let text = readFileSync(file, "utf8").replaceAll("GPU-00000000-0000-0000-0000-000000000000", gpu);
    slices.forEach((uuid, i) => (text = text.replaceAll(`MIG-0000000${i}-0000-0000-0000-00000000000${i}`, uuid)));
    writeFileSync(file, text);
  }
  return { dir, slices };
}

/**
 * The recorded H200 host for the fake nvidia-smi (FAKE_NVIDIA_SMI_DIR), with a
 * GPU UUID of its own and no processes: agents that replay the same recording
 * would otherwise report one GPU from several hosts. Idle, as an idle H100
 * reads (0 MiB used, 0 %): memory held with no process listed is someone's
 * job nvidia-smi cannot see, and would make the GPU in use. `reading` sets
 * other values.
 */
export function ownH200Fixture(reading: { memoryUsedMiB: number; utilizationPct: number } = { memoryUsedMiB: 0, utilizationPct: 0 }): string {
  const source = path.join(root, "host", "collector", "fixtures", "h200-driver-580");
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
/** Two workers run specs side by side: names carry the worker's index, so that the same millisecond never makes the same name twice. */
const WORKER = process.env.TEST_PARALLEL_INDEX ?? "0";

/**
 * A host of the spec's own: registered, with an agent that replays one idle
 * H200 every 500 ms. The agent goes into `children`, which the spec kills
 * when it ends.
 */
export async function idleH200Host(prefix: string, children: ChildProcess[]): Promise<string> {
  const hostName = uniqueHostName(prefix);
  const hostToken = await addHost(hostName);
  children.push(
    startAgent(["--server", E2E_ORIGIN, "--nvidia-smi", fakeNvidiaSmi, "--host-name", hostName, "--interval", "500ms"], {
      GPUDESK_AGENT_TOKEN: hostToken,
      FAKE_NVIDIA_SMI_DIR: ownH200Fixture(),
    }),
  );
  // Returned once its GPU is stored (the agent's first report): a booking naming the host before that is refused.
  const { token } = await bootstrapAdmin();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { hosts } = await apiCall<{ hosts: { name: string; gpuCount: number }[] }>("GET", "/api/v1/hosts", { token });
    if ((hosts.find((host) => host.name === hostName)?.gpuCount ?? 0) > 0) return hostName;
    if (Date.now() > deadline) throw new Error(`${hostName}'s agent did not report its GPU within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export function uniqueHostName(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${WORKER}-${counter}`;
}

export interface TestUser {
  username: string;
  password: string;
}

/**
 * The first admin of the e2e server, made with the CLI once per worker (as
 * the README's first step does) with a token of theirs: everything else a
 * spec needs (people, tokens, hosts) is made through the REST API with it,
 * a request each instead of a CLI process each.
 */
let bootstrap: Promise<{ user: TestUser; token: string }> | undefined;

function bootstrapAdmin(): Promise<{ user: TestUser; token: string }> {
  bootstrap ??= (async () => {
    const username = `e2eroot${Date.now().toString(36)}${WORKER}`;
    const password = `pw-${username}-long-enough`;
    const added = spawnSync(process.execPath, [cli, "user", "add", username, "--password-stdin", "--admin"], {
      cwd: root,
      env: { ...process.env, GPUDESK_DATA_DIR: E2E_DATA_DIR },
      input: password,
      encoding: "utf8",
      timeout: 60_000,
    });
    if (added.status !== 0) throw new Error(`gpudesk user add failed: ${added.stderr}`);
    const user = { username, password };
    return { user, token: await tokenFor(user, "e2e bootstrap") };
  })();
  return bootstrap;
}

/** A refusal of the e2e server's API, with its status. */
export class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function apiCall<T>(method: string, url: string, init: { token?: string; cookie?: string; body?: unknown }): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json", origin: E2E_ORIGIN };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.cookie) headers.cookie = init.cookie;
  const response = await fetch(`${E2E_ORIGIN}${url}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await response.text();
  if (!response.ok) throw new ApiRefusal(response.status, `${method} ${url} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/**
 * Creates an account through the API, as an admin would in /admin/users;
 * with `unixLogin`, the person whose processes on the hosts run as that
 * login (taking over a demo person of the simulated fleet who has it).
 */
export async function createUser(prefix: string, options: { admin?: boolean; name?: string; unixLogin?: string; takeOverDemo?: boolean } = {}): Promise<TestUser> {
  const username = `${prefix}${Date.now().toString(36)}${WORKER}${(counter += 1)}`.toLowerCase().replace(/[^a-z0-9_.]/g, "");
  const password = `pw-${username}-long-enough`;
  const { token } = await bootstrapAdmin();
  await apiCall("POST", "/api/v1/users", {
    token,
    body: {
      username,
      password,
      name: options.name,
      role: options.admin ? "admin" : "member",
      unixLogin: options.unixLogin,
      takeOverDemo: options.takeOverDemo ?? options.unixLogin !== undefined,
    },
  });
  return { username, password };
}

/**
 * A person who takes over a demo login of the simulated fleet, for specs
 * that replay a moment of it: the first of `moments` whose login no other
 * spec has taken yet (specs run side by side, and a login is one person's).
 */
export async function personForMoment<T extends { login: string }>(prefix: string, moments: Iterable<T>, options: { name?: string } = {}): Promise<{ person: TestUser; moment: T }> {
  // A demo person whose booked units run their work keeps their login: taken over, that work (the
  // split H100's 3g.40gb, the pre-training run) would run as someone else, and the fleet and wall
  // specs beside this one would see a conflict there.
  const { token } = await bootstrapAdmin();
  const fleet = await apiCall<{ gpuStates: Record<string, { state: string; bookedBy: { username: string } | null }> }>("GET", "/api/v1/fleet", { token });
  const working = Object.values(fleet.gpuStates).filter((gpu) => gpu.state === "booked_in_use" && gpu.bookedBy);
  const tried = new Set<string>(working.map((gpu) => gpu.bookedBy!.username.replace(/-sim$/, "")));
  for (const moment of moments) {
    if (tried.has(moment.login)) continue;
    tried.add(moment.login);
    try {
      return { person: await createUser(prefix, { ...options, unixLogin: moment.login }), moment };
    } catch (error) {
      if (!(error instanceof ApiRefusal && error.status === 409)) throw error;
    }
  }
  throw new Error(`every demo login of these moments belongs to a person or runs on a demo booking: ${[...tried].join(", ")}`);
}

/** A personal API token of the person: they sign in and make one, as in /settings/tokens. */
export async function tokenFor(user: TestUser, label = "e2e"): Promise<string> {
  const signedIn = await fetch(`${E2E_ORIGIN}/api/auth/sign-in/username`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: E2E_ORIGIN },
    body: JSON.stringify({ username: user.username, password: user.password }),
  });
  if (!signedIn.ok) throw new Error(`sign-in of ${user.username} failed: ${signedIn.status} ${await signedIn.text()}`);
  const cookie = signedIn.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  return (await apiCall<{ token: string }>("POST", "/api/v1/tokens", { cookie, body: { label } })).token;
}

/** Registers a host through the API, as an admin would in /admin/hosts; answers the agent's token. */
export async function addHost(name: string): Promise<string> {
  const { token } = await bootstrapAdmin();
  return (await apiCall<{ token: string }>("POST", "/api/v1/hosts", { token, body: { name } })).token;
}

let sharedMember: Promise<TestUser> | undefined;
let sharedAdmin: Promise<TestUser> | undefined;

/** One member and one admin per worker. */
export function member(): Promise<TestUser> {
  sharedMember ??= createUser("member");
  return sharedMember;
}

export function admin(): Promise<TestUser> {
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

/**
 * Moves a booking's start (or its last keep) `minutes` back in the e2e
 * server's database and stores those minutes as read (idle by default):
 * how specs of minute-scale rules (idle release, the idle alert) get their
 * minutes in seconds instead of waiting for them. This process is a second
 * one on the server's SQLite database, as a backup or a shell would be.
 */
export async function backdateBooking(bookingId: string, minutes: number, options: import("@/server/idle-release/backdate-idle").BackdateOptions = {}): Promise<Date> {
  process.env.GPUDESK_DATA_DIR = E2E_DATA_DIR;
  const stored = await import("@/server/idle-release/backdate-idle");
  return stored.backdateBooking(bookingId, minutes, new Date(), options);
}

/** A new browser context on a server of the spec's own (e2e/display-server.ts), signed in there as `person`. */
export async function signedInPageOn(
  browser: import("@playwright/test").Browser,
  serverUrl: string,
  person: { username: string; password: string },
  viewport: { width: number; height: number },
): Promise<import("@playwright/test").Page> {
  const context = await browser.newContext({ viewport, baseURL: serverUrl });
  const page = await context.newPage();
  const response = await page.request.post("/api/auth/sign-in/username", { data: person, headers: { origin: serverUrl } });
  if (!response.ok()) throw new Error(`signing in as ${person.username} on ${serverUrl} failed: ${response.status()} ${await response.text()}`);
  return page;
}

/** Waits until the page's scripts run (components/hydration-gate.tsx): what is typed or clicked before that is lost. */
export async function hydrated(page: import("@playwright/test").Page): Promise<void> {
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

/** A page of its own (a new context) at this viewport, signed in as `who`; a phone's width gets touch and a mobile agent. */
export async function signedInAt(browser: import("@playwright/test").Browser, viewport: { width: number; height: number }, who: TestUser): Promise<import("@playwright/test").Page> {
  const context = await browser.newContext({ viewport, ...(viewport.width < 500 ? { isMobile: true, hasTouch: true } : {}) });
  const page = await context.newPage();
  await signIn(page, who);
  return page;
}

/**
 * GPU hosts of a spec's own, each with a real agent on a fake nvidia-smi
 * (one H200) and a fake /sys/class/infiniband whose port 1 is on the
 * InfiniBand subnet given for it; resolves once all report.
 */
export async function startIbHosts(request: import("@playwright/test").APIRequestContext, token: string, hosts: { name: string; subnet: string }[]): Promise<ChildProcess[]> {
  const agents: ChildProcess[] = [];
  for (const { name, subnet } of hosts) {
    const fabric = writeFakeInfiniband(mkdtempSync(path.join(os.tmpdir(), "gpudesk-e2e-ib-")), {
      mlx5_0: { netDevice: "ib0", ports: { 1: { gid: `fe80:0000:0000:${subnet}:0c42:a103:0065:8f3a` } } },
    });
    const hostToken = await addHost(name);
    agents.push(startAgent(["--server", E2E_ORIGIN, "--nvidia-smi", fakeNvidiaSmi, "--host-name", name], { GPUDESK_AGENT_TOKEN: hostToken, FAKE_NVIDIA_SMI_DIR: ownH200Fixture(), GPUDESK_SYSFS_INFINIBAND: fabric }));
  }
  await expect
    .poll(
      async () => {
        const fleet = (await (await request.get("/api/v1/fleet", { headers: { authorization: `Bearer ${token}` } })).json()) as { hosts: { name: string; online: boolean }[] };
        return hosts.every(({ name }) => fleet.hosts.some((host) => host.name === name && host.online));
      },
      { timeout: 60_000 },
    )
    .toBe(true);
  return agents;
}
