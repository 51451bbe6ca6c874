import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GPUDESK_VERSION } from "@/lib/version";
import { buildHostBundle } from "@/server/downloads/build-host-bundle";
import { renderInstallScript, type HostDownloads } from "@/server/downloads/install-script";
import { repoRoot } from "@/server/paths";

/**
 * The installer, run by dash (POSIX sh, as Debian's /bin/sh) into a fake
 * root, downloading the bundle over HTTP from a server that serves it.
 */

const TOKEN = "gpd_host_Abc-123_xyz";
let work: string;
let downloads: HostDownloads;
let served: Buffer;
let server: Server;
let serverUrl: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "gpudesk-install-"));
  const bundle = await buildHostBundle(repoRoot, path.join(work, "gpudesk.mjs"));
  const bytes = readFileSync(bundle.file);
  downloads = {
    version: GPUDESK_VERSION,
    bundle: bytes,
    bundleSha256: createHash("sha256").update(bytes).digest("hex"),
    installTemplate: readFileSync(path.join(repoRoot, "server/downloads/install.sh"), "utf8"),
  };
  served = bytes;
  server = createServer((request, response) => {
    if (request.url !== "/downloads/gpudesk.mjs") return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": "text/javascript" }).end(served);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeFileSync(path.join(work, "install.sh"), renderInstallScript(downloads, serverUrl));
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  rmSync(work, { recursive: true, force: true });
});

/** A fresh fake root for one test. */
function fakeRoot(): string {
  return mkdtempSync(path.join(work, "root-"));
}

/** Runs the installer with dash; async so that the bundle's HTTP server in this process can answer. */
function install(root: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("dash", [path.join(work, "install.sh"), "--prefix", root, ...args]);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (status: number | null) => resolve({ status, stdout, stderr }));
  });
}

const mode = (file: string) => statSync(file).mode & 0o777;

describe("install.sh", () => {
  it("parses as POSIX sh (dash -n)", () => {
    const result = spawnSync("dash", ["-n", path.join(work, "install.sh")], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
  });

  it("installs the bundle, the command, a root-only token file and a hardened unit, and says so", async () => {
    const root = fakeRoot();
    const result = await install(root, ["--token", TOKEN]);
    expect(result.status, result.stderr).toBe(0);

    const bundle = path.join(root, "usr/local/lib/gpudesk/gpudesk.mjs");
    expect(readFileSync(bundle).equals(downloads.bundle)).toBe(true);
    expect(mode(bundle)).toBe(0o755);
    const command = path.join(root, "usr/local/bin/gpudesk");
    expect(mode(command)).toBe(0o755);
    // The command runs the installed path, which only exists in the fake root here: run its node on the bundle the same way.
    expect(readFileSync(command, "utf8")).toContain(`exec "${process.execPath}" "/usr/local/lib/gpudesk/gpudesk.mjs" "$@"`);

    const envFile = path.join(root, "etc/gpudesk/agent.env");
    expect(mode(envFile)).toBe(0o600);
    expect(readFileSync(envFile, "utf8")).toContain(`GPUDESK_AGENT_TOKEN=${TOKEN}\n`);

    const unit = readFileSync(path.join(root, "etc/systemd/system/gpudesk-agent.service"), "utf8");
    expect(unit).toContain(`ExecStart=${process.execPath} /usr/local/lib/gpudesk/gpudesk.mjs agent --server ${serverUrl}\n`);
    expect(unit).toContain("EnvironmentFile=/etc/gpudesk/agent.env\n");
    for (const line of ["Restart=always", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=read-only", "PrivateTmp=yes", "WantedBy=multi-user.target"]) {
      expect(unit).toContain(`${line}\n`);
    }
    // The agent reads /proc/PID/environ and /proc/PID/cgroup of every process: /proc must stay whole.
    expect(unit).not.toMatch(/ProtectProc=|ProcSubset=|hidepid/);
    // nvidia-smi opens /dev/nvidia*: nothing may close the device policy (ProtectClock= adds a DeviceAllow= rule).
    expect(unit).not.toMatch(/PrivateDevices=|DeviceAllow=|DevicePolicy=|ProtectClock=/);
    expect(unit).not.toContain(TOKEN);

    expect(result.stdout).toContain(`installed gpudesk ${GPUDESK_VERSION}`);
    expect(result.stdout).toContain("wrote the host token");
    expect(result.stdout).toContain("did not start the service");
  });

  it("passes systemd-analyze verify, where systemd is installed", async (context) => {
    const which = spawnSync("sh", ["-c", "command -v systemd-analyze"], { encoding: "utf8" });
    if (which.status !== 0) {
      context.skip();
      return;
    }
    const root = fakeRoot();
    expect((await install(root, ["--token", TOKEN])).status).toBe(0);
    const result = spawnSync("systemd-analyze", ["verify", path.join(root, "etc/systemd/system/gpudesk-agent.service")], { encoding: "utf8" });
    // Missing /etc/gpudesk/agent.env is expected in a fake root; anything else is a mistake in the unit.
    const problems = result.stderr.split("\n").filter((line) => line.trim() && !line.includes("agent.env"));
    expect(problems).toEqual([]);
  });

  it("upgrades on a second run without --token and keeps the token", async () => {
    const root = fakeRoot();
    expect((await install(root, ["--token", TOKEN])).status).toBe(0);
    const again = await install(root, []);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain("kept the host token");
    expect(readFileSync(path.join(root, "etc/gpudesk/agent.env"), "utf8")).toContain(TOKEN);
    expect(mode(path.join(root, "etc/gpudesk/agent.env"))).toBe(0o600);
  });

  it("refuses a first install without a token, a token of the wrong kind, and an unknown option, writing nothing", async () => {
    for (const args of [[], ["--token", "gpd_pat_personal"], ["--token", "gpd_host_a;rm -rf /"], ["--tokn", TOKEN]]) {
      const root = fakeRoot();
      const result = await install(root, args);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toMatch(/^gpudesk install: /);
      expect(existsSync(path.join(root, "usr"))).toBe(false);
      expect(existsSync(path.join(root, "etc"))).toBe(false);
    }
  });

  it("refuses a Node older than 18", async () => {
    const oldNode = path.join(work, "node16");
    writeFileSync(oldNode, "#!/bin/sh\nprintf 16\n");
    chmodSync(oldNode, 0o755);
    const result = await install(fakeRoot(), ["--token", TOKEN, "--node", oldNode]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("is Node.js 16; gpudesk needs 18 or newer");
  });

  it("refuses a download whose checksum is not the bundle's, and installs nothing", async () => {
    const root = fakeRoot();
    served = Buffer.concat([downloads.bundle, Buffer.from("\n// altered\n")]);
    try {
      const result = await install(root, ["--token", TOKEN]);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain("checksum");
      expect(existsSync(path.join(root, "usr/local/lib/gpudesk/gpudesk.mjs"))).toBe(false);
    } finally {
      served = downloads.bundle;
    }
  });

  it("--cli-only installs the command alone; --uninstall removes everything", async () => {
    const root = fakeRoot();
    const cliOnly = await install(root, ["--cli-only"]);
    expect(cliOnly.status, cliOnly.stderr).toBe(0);
    expect(existsSync(path.join(root, "usr/local/bin/gpudesk"))).toBe(true);
    expect(existsSync(path.join(root, "etc/gpudesk/agent.env"))).toBe(false);
    expect(existsSync(path.join(root, "etc/systemd/system/gpudesk-agent.service"))).toBe(false);
    expect(cliOnly.stdout).toContain(`gpudesk login --url ${serverUrl}`);

    expect((await install(root, ["--token", TOKEN])).status).toBe(0);
    const removed = await install(root, ["--uninstall"]);
    expect(removed.status, removed.stderr).toBe(0);
    for (const file of ["usr/local/bin/gpudesk", "usr/local/lib/gpudesk", "etc/gpudesk", "etc/systemd/system/gpudesk-agent.service"]) {
      expect(existsSync(path.join(root, file)), file).toBe(false);
    }
  });
});
