import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { addHost, admin, createUser, E2E_ORIGIN, fakeNvidiaSmi, gpudesk, ownH200Fixture, releaseEverything, startAgent, uniqueHostName, tokenFor } from "./helpers";

/**
 * `gpudesk run` against the real server, on a GPU host: this machine is
 * registered under its own hostname, with an agent fed by the fake
 * nvidia-smi (one idle H200). `run` books a GPU of this host, hands it to
 * the child in its environment, passes the child's exit code through and
 * gives the booking back however the child ends; it refuses another host.
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
    const child = spawn(process.execPath, [cli, "run", "-n", "1", "--for", "1h", "--purpose", "e2e cli", "--", process.execPath, "-e", childScript], {
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

/** The booking a GPUDESK_RESERVATION value names: `<id>.<proof>` (lib/domain/booking-claim.ts). */
function bookingId(value: string): string {
  expect(value).toMatch(/^[^.]+\.[A-Za-z0-9_-]{32}$/);
  return value.split(".")[0];
}

async function bookingState(request: APIRequestContext, token: string, id: string): Promise<string | undefined> {
  const response = await request.get("/api/v1/reservations?state=all", { headers: { authorization: `Bearer ${token}` } });
  expect(response.ok()).toBe(true);
  const { reservations: bookings } = (await response.json()) as { reservations: { id: string; state: string }[] };
  return bookings.find((booking) => booking.id === id)?.state;
}

let token = "";
let person = { username: "" };
let agent: ChildProcess | null = null;
/** The name this machine's agent reports, as `gpudesk run` finds its host. */
const HERE = os.hostname();
/** Other people a test books for; theirs and the CLI person's bookings and waiting requests are given back after each test. */
const others: string[] = [];
/** Stops CLI processes a failed test left running. */
const cliStops: (() => void)[] = [];

test.afterEach(async ({ request }) => {
  for (const stop of cliStops.splice(0)) stop();
  for (const other of [token, ...others.splice(0)]) await releaseEverything(request, other);
});

test.beforeAll(async ({ request }) => {
  test.setTimeout(120_000);
  person = await createUser("cli");
  const created = gpudesk(["token", "create", "--user", person.username, "--label", "e2e cli"]);
  expect(created.status, created.stderr).toBe(0);
  token = created.stdout.trim();
  expect(token).toMatch(/^gpd_pat_/);

  const hostToken = await addHost(HERE);
  agent = startAgent(["--server", E2E_ORIGIN, "--nvidia-smi", fakeNvidiaSmi, "--host-name", HERE], {
    GPUDESK_AGENT_TOKEN: hostToken,
    FAKE_NVIDIA_SMI_DIR: ownH200Fixture(),
  });
  await expect
    .poll(
      async () => {
        const fleet = (await (await request.get("/api/v1/fleet", { headers: { authorization: `Bearer ${token}` } })).json()) as {
          hosts: { name: string; online: boolean }[];
        };
        return fleet.hosts.some((host) => host.name === HERE && host.online);
      },
      { timeout: 60_000 },
    )
    .toBe(true);
});

test.afterAll(() => {
  agent?.kill("SIGKILL");
});

test("gpudesk run gives the child its GPUs, passes its exit code through and releases the booking", async ({ request }) => {
  test.setTimeout(120_000);
  const result = await gpudeskRun(token, `${PRINT_ENV} process.exit(3);`);
  expect(result.code, result.stderr).toBe(3);

  const env = childEnv(result.stdout);
  // A GPU of this machine's host, not of some other host.
  expect(result.stderr).toContain(`gpudesk: ${HERE} GPU 0 booked until`);
  expect(env.CUDA_VISIBLE_DEVICES).toBe("0");
  expect(env.CUDA_DEVICE_ORDER).toBe("PCI_BUS_ID");
  const id = bookingId(env.GPUDESK_RESERVATION);
  expect(result.stderr).toContain(`released ${id}`);
  expect(await bookingState(request, token, id)).toBe("released");
  // The child got the very value that proves the booking, as the booker's launch settings show it.
  const view = await request.get(`/api/v1/reservations/${id}`, { headers: { authorization: `Bearer ${token}` } });
  expect(((await view.json()) as { launch: { reservationValue: string } }).launch.reservationValue).toBe(env.GPUDESK_RESERVATION);
});

test("gpudesk run releases the booking when the child is killed by a signal", async ({ request }) => {
  test.setTimeout(120_000);
  const result = await gpudeskRun(token, `${PRINT_ENV} process.kill(process.pid, "SIGTERM"); setTimeout(() => {}, 60000);`);
  expect(result.code, result.stderr).toBe(128 + 15);
  const env = childEnv(result.stdout);
  expect(await bookingState(request, token, bookingId(env.GPUDESK_RESERVATION))).toBe("released");
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
  expect(await bookingState(request, token, bookingId(env.GPUDESK_RESERVATION))).toBe("released");
});

test("gpudesk run refuses, in one line and without booking, to run a command here with another host's GPUs", async ({ request }) => {
  const before = await request.get("/api/v1/reservations?state=all", { headers: { authorization: `Bearer ${token}` } });
  const count = ((await before.json()) as { reservations: unknown[] }).reservations.length;
  // Another real GPU host of the server (the simulated demo hosts may be booked from anywhere: they have no GPUs to take).
  const other = uniqueHostName("e2e-other");
  await addHost(other);
  const result = gpudeskWithToken(["run", "-n", "1", "--host", other, "--for", "1h", "--", process.execPath, "-e", "console.log('RAN')"]);
  expect(result.status).not.toBe(0);
  expect(result.stdout).not.toContain("RAN");
  expect(result.stderr.trim().split("\n")).toEqual([
    `gpudesk: run starts the command here, on ${HERE}, not on ${other}: run it on ${other}, or book with "gpudesk reserve --host ${other}"`,
  ]);
  const after = await request.get("/api/v1/reservations?state=all", { headers: { authorization: `Bearer ${token}` } });
  expect(((await after.json()) as { reservations: unknown[] }).reservations).toHaveLength(count);
});

test("gpudesk reserve books on this host by default; whois and status show the booker, purpose and end", () => {
  const reserved = gpudeskWithToken(["reserve", "--gpus", "0", "--for", "30m", "--purpose", "cli whois e2e", "--json"]);
  expect(reserved.status, reserved.stderr).toBe(0);
  expect(reserved.stderr).toContain(`booking on this machine, ${HERE}`);
  const booking = JSON.parse(reserved.stdout) as { id: string; host: { name: string }; endsAt: string };
  expect(booking.host.name).toBe(HERE);
  const until = `${booking.endsAt.slice(0, 16).replace("T", " ")}Z`;
  try {
    const whois = gpudeskWithToken(["whois", HERE.toUpperCase(), "0"]);
    expect(whois.status, whois.stderr).toBe(0);
    expect(whois.stdout).toContain("State: Booked, idle");
    expect(whois.stdout).toContain(`Booked by ${person.username} since`);
    expect(whois.stdout).toContain(`until ${until}: cli whois e2e [${booking.id}]`);
    expect(whois.stdout).toContain("Nothing runs there");

    const status = gpudeskWithToken(["status"]);
    expect(status.status, status.stderr).toBe(0);
    // "Units:" where a GPU of the fleet is split into MIG slices (the e2e fleet has one), "GPUs:" otherwise.
    expect(status.stdout).toMatch(/^(GPUs|Units): \d+ of \d+ free/);
    const row = status.stdout.split("\n").find((line) => line.startsWith(`${HERE} `));
    expect(row).toMatch(new RegExp(`^${HERE}\\s+GPU 0\\s+NVIDIA H200\\s+\\S+\\s+\\S+ GiB\\s+Booked, idle\\s+${person.username}\\s+${until}\\s+-$`));
  } finally {
    expect(gpudeskWithToken(["release", booking.id]).status).toBe(0);
  }
});

test("gpudesk prints the server's message and exits non-zero when the booking is refused", async ({ request }) => {
  const result = gpudeskWithToken(["reserve", "-n", "64", "--host", "sim-4090-a", "--for", "1h"]);
  expect(result.status).not.toBe(0);
  // The very message the server gives for the same request, on one line.
  const direct = await request.post("/api/v1/reservations", {
    headers: { authorization: `Bearer ${token}` },
    data: { count: 64, host: "sim-4090-a", durationMinutes: 60, purpose: "gpudesk reserve" },
  });
  expect(direct.ok()).toBe(false);
  const { error } = (await direct.json()) as { error: { message: string } };
  expect(error.message).toMatch(/sim-4090-a/);
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  expect(result.stderr).toMatch(new RegExp(`^gpudesk: ${error.message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
});

/** A gpudesk client command with the test person's token. */
function gpudeskWithToken(args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { cwd: root, env: { ...process.env, GPUDESK_URL: E2E_ORIGIN, GPUDESK_TOKEN: token }, encoding: "utf8", timeout: 60_000 });
}

test("gpudesk env prints the booking's proof for its booker only", async ({ request }) => {
  test.setTimeout(120_000);
  const booked = await request.post("/api/v1/reservations", {
    headers: { authorization: `Bearer ${token}` },
    data: { host: "sim-4090-a", gpus: [1], durationMinutes: 30, purpose: "gpudesk env", allowBusy: true },
  });
  expect(booked.status(), await booked.text()).toBe(201);
  const { id, launch } = (await booked.json()) as { id: string; launch: { reservationValue: string } };
  try {
    const mine = gpudeskWithToken(["env", id]);
    expect(mine.status, mine.stderr).toBe(0);
    expect(mine.stdout).toContain(`export GPUDESK_RESERVATION=${launch.reservationValue}`);
    expect(bookingId(launch.reservationValue)).toBe(id);

    // An admin may look at the booking, not take its proof.
    const adminToken = (await tokenFor((await admin())));
    const theirs = spawnSync(process.execPath, [cli, "env", id], { cwd: root, env: { ...process.env, GPUDESK_URL: E2E_ORIGIN, GPUDESK_TOKEN: adminToken }, encoding: "utf8", timeout: 60_000 });
    expect(theirs.status, theirs.stderr).toBe(0);
    expect(theirs.stdout).toContain("export CUDA_VISIBLE_DEVICES=1");
    expect(theirs.stdout).not.toContain("GPUDESK_RESERVATION");
  } finally {
    await request.post(`/api/v1/reservations/${id}/release`, { headers: { authorization: `Bearer ${token}` } });
  }
});

test("gpudesk reserve --wait queues while the GPUs are taken and is granted when they are released", async ({ request }) => {
  test.setTimeout(120_000);
  const other = await createUser("bookedBy");
  const otherToken = (await tokenFor(other));
  others.push(otherToken);
  const auth = (bearer: string) => ({ authorization: `Bearer ${bearer}` });
  const held = await request.post("/api/v1/reservations", {
    headers: auth(otherToken),
    data: { host: "sim-4090-a", gpus: [0, 1, 2], durationMinutes: 60, purpose: "holds the host", allowBusy: true },
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
  // A failure below must not leave the CLI waiting (and later granted) behind.
  cliStops.push(() => waiting.exitCode === null && waiting.kill("SIGKILL"));

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

test("gpudesk run without --for books until the command ends, bounded by the policy's longest booking", async ({ request }) => {
  test.setTimeout(120_000);
  const policy = (await (await request.get("/api/v1/policies", { headers: { authorization: `Bearer ${token}` } })).json()) as { maxDurationMinutes: number };
  const result = gpudeskWithToken(["run", "-n", "1", "--", process.execPath, "-e", PRINT_ENV]);
  expect(result.status, result.stderr).toBe(0);
  expect(result.stderr).toContain("gpudesk: booking until the command ends (at most");
  const id = bookingId(childEnv(result.stdout).GPUDESK_RESERVATION);
  const view = (await (await request.get(`/api/v1/reservations/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    state: string;
    startsAt: string;
    endsAt: string;
    host: { name: string };
  };
  expect(view.host.name).toBe(HERE);
  // Released when the command ended, long before the bound.
  expect(view.state).toBe("released");
  expect(result.stderr).toContain(`released ${id}`);
  expect(await bookingState(request, token, id)).toBe("released");
  // The bound it was booked with: the policy's longest booking (its end is cut to the release).
  // Printed in the machine's zone, with its offset: "2026-12-08 23:10Z" or "2026-12-09 08:10 +09:00".
  const booked = /booked until (\d{4}-\d\d-\d\d) (\d\d:\d\d)(Z| [+-]\d\d:\d\d)/.exec(result.stderr);
  expect(booked, result.stderr).not.toBeNull();
  const bookedEnd = Date.parse(`${booked![1]}T${booked![2]}:00${booked![3].trim()}`);
  expect(bookedEnd - Date.parse(view.startsAt)).toBeGreaterThanOrEqual(policy.maxDurationMinutes * 60_000 - 120_000);
});

test("gpudesk release without an id releases my booking on this host, and says so in one line when there is none", async ({ request }) => {
  test.setTimeout(120_000);
  const first = gpudeskWithToken(["reserve", "--gpus", "0", "--for", "30m", "--purpose", "release without id", "--json"]);
  expect(first.status, first.stderr).toBe(0);
  const { id } = JSON.parse(first.stdout) as { id: string };
  const released = gpudeskWithToken(["release"]);
  expect(released.status, released.stderr).toBe(0);
  expect(released.stdout).toContain(`Released ${id}`);
  expect(await bookingState(request, token, id)).toBe("released");

  const none = gpudeskWithToken(["release"]);
  expect(none.status).not.toBe(0);
  expect(none.stderr.trim()).toBe(`gpudesk: You have no active reservation on ${HERE}: give its id (gpudesk list shows them)`);
});
