import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GPUDESK_VERSION } from "@/lib/version";
import { buildHostBundle } from "@/server/downloads/build-host-bundle";
import { renderInstallScript, type HostDownloads } from "@/server/downloads/install-script";
import { repoRoot } from "@/server/core/paths";

/**
 * The installer, run by dash (POSIX sh, as Debian's /bin/sh) into a fake
 * root, downloading the bundle over HTTP from a server that serves it.
 */

const TOKEN = "gpd_host_Abc-123_xyz";
/** dash by its path: one test runs the installer with a PATH of its own. */
const DASH = spawnSync("sh", ["-c", "command -v dash"], { encoding: "utf8" }).stdout.trim() || "dash";
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

/**
 * Runs the installer with dash; async so that the bundle's HTTP server in this process can answer.
 * In a session of its own: no terminal to ask for a token on (as under CI).
 */
function install(root: string, args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(DASH, [path.join(work, "install.sh"), "--prefix", root, ...args], { detached: true, env: { ...process.env, ...options.env } });
    // The installer reads standard input only for --token-file -.
    child.stdin.on("error", () => {});
    child.stdin.end(options.stdin ?? "");
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
    const tokenFile = path.join(work, "token");
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const result = await install(root, ["--token-file", tokenFile]);
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
    expect(unit).toContain(`ExecStart=${process.execPath} --max-semi-space-size=1 --v8-pool-size=1 /usr/local/lib/gpudesk/gpudesk.mjs agent --server ${serverUrl}\n`);
    expect(unit).toContain("EnvironmentFile=/etc/gpudesk/agent.env\n");
    for (const line of ["Restart=always", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=read-only", "PrivateTmp=yes", "WantedBy=multi-user.target"]) {
      expect(unit).toContain(`${line}\n`);
    }
    // The agent reads /proc/PID/environ and /proc/PID/cgroup of every process: /proc must stay whole.
    expect(unit).not.toMatch(/ProtectProc=|ProcSubset=|hidepid/);
    // nvidia-smi opens /dev/nvidia*: nothing may close the device policy (ProtectClock= adds a DeviceAllow= rule).
    expect(unit).not.toMatch(/PrivateDevices=|DeviceAllow=|DevicePolicy=|ProtectClock=/);
    expect(unit).not.toContain(TOKEN);

    // Without --allow-enforcement the agent cannot signal anyone's process.
    expect(unit).toContain("CapabilityBoundingSet=CAP_DAC_READ_SEARCH CAP_SYS_PTRACE\n");
    expect(unit).not.toContain("CAP_KILL");
    expect(result.stdout).toContain(`checked the bundle's SHA-256 checksum: ${downloads.bundleSha256}`);
    expect(result.stdout).not.toContain("warning");
    expect(result.stdout).toContain(`installed gpudesk ${GPUDESK_VERSION}`);
    expect(result.stdout).toContain("wrote the host token");
    // Not started (--prefix): it says how to start it, and never that the host reports already.
    expect(result.stdout).toContain("done, not started (--no-start or --prefix): start it with systemctl enable --now gpudesk-agent.service");
    expect(result.stdout).not.toMatch(/this host reports .* within seconds/);
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

  it("takes the token from standard input, and warns when it came on the command line", async () => {
    const fromStdin = fakeRoot();
    const piped = await install(fromStdin, ["--token-file", "-"], { stdin: `${TOKEN}\n` });
    expect(piped.status, piped.stderr).toBe(0);
    expect(readFileSync(path.join(fromStdin, "etc/gpudesk/agent.env"), "utf8")).toContain(`GPUDESK_AGENT_TOKEN=${TOKEN}\n`);
    const onCommandLine = await install(fakeRoot(), ["--token", TOKEN]);
    expect(onCommandLine.status).toBe(0);
    expect(onCommandLine.stdout).toContain("warning: --token puts the token in ps");
  });

  it("grants the agent CAP_KILL only with --allow-enforcement", async () => {
    const root = fakeRoot();
    expect((await install(root, ["--token-file", "-", "--allow-enforcement"], { stdin: TOKEN })).status).toBe(0);
    const unit = readFileSync(path.join(root, "etc/systemd/system/gpudesk-agent.service"), "utf8");
    expect(unit).toContain("CapabilityBoundingSet=CAP_DAC_READ_SEARCH CAP_SYS_PTRACE CAP_KILL\n");
    expect(unit).toContain("agent --server");
    expect(unit).toContain(" --allow-enforcement\n");
  });

  it("checks the checksum with Node.js where no sha256sum, shasum or openssl is installed, rather than skip it", async () => {
    // A PATH with the tools the installer uses, but no checksum program.
    const bin = mkdtempSync(path.join(work, "bin-"));
    for (const tool of ["cat", "cut", "mkdir", "chmod", "mv", "rm", "rmdir", "dirname", "basename", "id", "curl", "sed", "stty", "cp"]) {
      const found = spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
      if (found) symlinkSync(found, path.join(bin, tool));
    }
    const env = { PATH: bin };
    const node = ["--node", process.execPath];
    const good = await install(fakeRoot(), ["--token-file", "-", ...node], { stdin: TOKEN, env });
    expect(good.status, good.stderr).toBe(0);
    expect(good.stdout).toContain(`checked the bundle's SHA-256 checksum: ${downloads.bundleSha256}`);
    served = Buffer.concat([downloads.bundle, Buffer.from("\n// altered\n")]);
    try {
      const root = fakeRoot();
      const altered = await install(root, ["--token-file", "-", ...node], { stdin: TOKEN, env });
      expect(altered.status).not.toBe(0);
      expect(altered.stderr).toContain("checksum");
      expect(existsSync(path.join(root, "usr/local/lib/gpudesk/gpudesk.mjs"))).toBe(false);
    } finally {
      served = downloads.bundle;
    }
  });

  it("the server's own unit cannot rewrite dist/ (the host bundle that GPU hosts run as root)", () => {
    const unit = readFileSync(path.join(repoRoot, "deploy/gpudesk.service"), "utf8");
    expect(unit).toContain("ProtectSystem=strict\n");
    const writable = unit.split("\n").filter((line) => line.startsWith("ReadWritePaths=")).flatMap((line) => line.slice("ReadWritePaths=".length).split(/\s+/));
    expect(writable.filter((dir) => dir.includes("dist"))).toEqual([]);
    expect(writable).toContain("/var/lib/gpudesk");
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
