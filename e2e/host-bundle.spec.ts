import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type Page } from "@playwright/test";
import { admin, createUser, E2E_ORIGIN, fakeNvidiaSmi, gpudesk, member, ownH200Fixture, signIn, uniqueHostName, tokenFor } from "./helpers";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/**
 * A GPU host as the installer leaves it: the server's /downloads/gpudesk.mjs
 * alone in a directory, run with plain Node, against the real server.
 */

let alone: string;

test.beforeAll(async ({ request }) => {
  alone = mkdtempSync(path.join(os.tmpdir(), "gpudesk-e2e-host-"));
  const download = await request.get("/downloads/gpudesk.mjs");
  expect(download.status()).toBe(200);
  writeFileSync(path.join(alone, "gpudesk.mjs"), await download.body());
  expect(readdirSync(alone)).toEqual(["gpudesk.mjs"]);
});

test.afterAll(() => {
  rmSync(alone, { recursive: true, force: true });
});

/** An environment with nothing of the checkout in it. */
function hostEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: alone, ...extra } as unknown as NodeJS.ProcessEnv;
}

function runBundle(args: string[], extra: Record<string, string>) {
  return spawnSync(process.execPath, ["gpudesk.mjs", ...args], { cwd: alone, env: hostEnv(extra), encoding: "utf8", timeout: 60_000 });
}

test("the installer and the bundle are served without sign-in; the installer names this server and the bundle's checksum", async ({ request, baseURL }) => {
  const script = await request.get("/install.sh");
  expect(script.status()).toBe(200);
  const text = await script.text();
  expect(text.split("\n")[0]).toBe("#!/bin/sh");
  expect(text).toContain(`SERVER_URL='${baseURL}'`);
  const bundle = await request.get("/downloads/gpudesk.mjs");
  const sha256 = createHash("sha256").update(await bundle.body()).digest("hex");
  expect(text).toContain(`BUNDLE_SHA256='${sha256}'`);
  expect(bundle.headers()["x-gpudesk-version"]).toBe(runBundle(["--version"], {}).stdout.trim());
});

test("the install line, run as Admin > Hosts shows it (into a fake root), installs an agent whose host appears live", async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  const hostName = uniqueHostName("bundle-host");
  const added = gpudesk(["host", "add", hostName]);
  expect(added.status, added.stderr).toBe(0);
  const token = added.stdout.trim();
  // The line as shown for hosts without a terminal, with `sudo sh` as dash (Debian's sh; these tests run as root) and a fake root.
  const root = path.join(alone, "root");
  const tokenFile = path.join(alone, "host-token");
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const line = `curl -fsSL ${baseURL}/install.sh | dash -s -- --token-file ${tokenFile} --prefix ${root}`;
  const installed = spawnSync("sh", ["-c", line], { encoding: "utf8", timeout: 60_000 });
  expect(installed.status, installed.stderr).toBe(0);
  expect(installed.stdout).toContain("wrote the host token");

  const unit = readFileSync(path.join(root, "etc/systemd/system/gpudesk-agent.service"), "utf8");
  expect(unit).toContain(`/usr/local/lib/gpudesk/gpudesk.mjs agent --server ${baseURL}\n`);
  const envFile = readFileSync(path.join(root, "etc/gpudesk/agent.env"), "utf8");
  // What systemd would start, from the fake root, with a fake nvidia-smi for the GPUs.
  const agent: ChildProcess = spawn(process.execPath, [path.join(root, "usr/local/lib/gpudesk/gpudesk.mjs"), "agent", "--server", baseURL!, "--nvidia-smi", fakeNvidiaSmi, "--host-name", hostName], {
    cwd: alone,
    // A GPU UUID of its own: the recording's is taken by the first host that reported it in this run.
    env: hostEnv({ GPUDESK_AGENT_TOKEN: /GPUDESK_AGENT_TOKEN=(\S+)/.exec(envFile)![1], FAKE_NVIDIA_SMI_DIR: ownH200Fixture() }),
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    await signIn(page, (await member()));
    await page.goto("/");
    const section = page.getByRole("region", { name: `Host ${hostName}` });
    await expect(section).toBeVisible({ timeout: 20_000 });
    await expect(section.getByTestId("host-status")).toHaveText("online");
    await expect(section.getByRole("article", { name: `GPU 0 on ${hostName}` })).toContainText("NVIDIA H200");
  } finally {
    agent.kill("SIGTERM");
  }
});

/**
 * A GPU host for `run`, which books only the machine it runs on: this machine, under its hostname
 * (cli.spec.ts registers it first in a full run; then its token is rotated for this agent), with
 * a recorded idle H200 of a GPU UUID of its own.
 */
async function startLocalHostAgent(page: Page): Promise<ChildProcess> {
  const here = os.hostname();
  let token = "";
  const added = gpudesk(["host", "add", here]);
  if (added.status === 0) token = added.stdout.trim();
  else {
    await signIn(page, (await admin()));
    const { hosts } = (await (await page.request.get("/api/v1/hosts")).json()) as { hosts: { id: string; name: string }[] };
    const id = hosts.find((host) => host.name === here)?.id;
    expect(id, added.stderr).toBeTruthy();
    token = ((await (await page.request.post(`/api/v1/hosts/${id}/rotate`, { headers: { origin: E2E_ORIGIN } })).json()) as { token: string }).token;
  }
  const fixture = ownH200Fixture();
  return spawn(process.execPath, ["gpudesk.mjs", "agent", "--server", E2E_ORIGIN, "--nvidia-smi", fakeNvidiaSmi, "--host-name", here], {
    cwd: alone,
    env: hostEnv({ GPUDESK_AGENT_TOKEN: token, FAKE_NVIDIA_SMI_DIR: fixture }),
    stdio: ["ignore", "ignore", "inherit"],
  });
}

test("status, reserve and run work from the bundle alone", async ({ page }) => {
  test.setTimeout(120_000);
  const person = await createUser("bundle");
  const token = (await tokenFor(person));
  const auth = { GPUDESK_URL: E2E_ORIGIN, GPUDESK_TOKEN: token };

  const status = runBundle(["status"], auth);
  expect(status.status, status.stderr).toBe(0);
  expect(status.stdout).toContain("sim-4090-a");

  const reserved = runBundle(["reserve", "-n", "1", "--host", "sim-4090-a", "--for", "1h", "--purpose", "bundle e2e", "--json"], auth);
  expect(reserved.status, reserved.stderr).toBe(0);
  const booking = JSON.parse(reserved.stdout) as { id: string };
  const released = runBundle(["release", booking.id], auth);
  expect(released.status, released.stderr).toBe(0);

  const agent = await startLocalHostAgent(page);
  try {
    await expect.poll(() => runBundle(["status"], auth).stdout, { timeout: 30_000 }).toContain(os.hostname());
    await expect
      .poll(() => {
        const ran = runBundle(["run", "-n", "1", "--for", "1h", "--", process.execPath, "-e", "console.log('GPUS=' + process.env.CUDA_VISIBLE_DEVICES)"], auth);
        return ran.status === 0 ? ran.stdout : ran.stderr;
      }, { timeout: 30_000 })
      .toMatch(/GPUS=0/);
  } finally {
    agent.kill("SIGTERM");
  }
});

test("Admin > Hosts shows the install line with this server's address and warns that 127.0.0.1 is not reachable from hosts", async ({ page, baseURL }) => {
  await signIn(page, (await admin()));
  await page.goto("/admin/hosts");
  await expect(page.getByLabel("Install line")).toHaveText(`curl -fsSL ${baseURL}/install.sh | sudo sh`);
  // The checksum out of band: the one the installer checks and prints.
  const script = await (await page.request.get("/install.sh")).text();
  const expected = /BUNDLE_SHA256='([0-9a-f]{64})'/.exec(script)![1];
  await expect(page.getByLabel("Bundle checksum")).toHaveText(expected);
  await expect(page.getByRole("alert").filter({ hasText: "GPU hosts cannot reach it" })).toContainText("GPUDESK_PUBLIC_URL");
  await page.getByLabel("Host name").fill(uniqueHostName("shot"));
  await page.getByRole("button", { name: "Register host" }).click();
  const token = await page.getByLabel("Agent token").inputValue();
  expect(token).toMatch(/^gpd_host_/);
  await expect(page.getByRole("button", { name: "Copy install command" })).toBeVisible();
  await expect(page.getByText(`curl -fsSL ${baseURL}/install.sh | sudo sh -s -- --token-file /root/gpudesk-host-token`)).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("admin-hosts.png"), fullPage: true });
});
