import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GPUDESK_VERSION } from "@/lib/version";
import { buildHostBundle, HOST_BUNDLE_TARGET_BYTES, type HostBundleResult } from "@/server/downloads/build-host-bundle";
import { repoRoot } from "@/server/core/paths";
import type { TestAgentServer } from "@/server/testing/agent-server";
import { uniqueName } from "@/server/testing/factories";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The host bundle stands alone: what runs on a GPU node (the agent and the
 * member CLI) is one file that needs Node and nothing of this checkout.
 */

/** The host-side folders: their code imports lib/ and each other, nothing else of the checkout. */
const HOST_SIDE = ["host/agent/", "host/collector/", "host/cli-client/", "host/cli/", "lib/"];
/** The server's packages: none of them may end up on a GPU node. */
const SERVER_PACKAGES = ["next", "react", "react-dom", "@prisma/client", "prisma", "better-auth", "better-sqlite3", "pg", "ioredis", "socket.io", "@socket.io/redis-adapter", "prom-client", "recharts"];

const fakeNvidiaSmi = path.join(repoRoot, "scripts", "fake-nvidia-smi.mjs");
let work: string;
let bundle: HostBundleResult;
let alone: string;
let server: TestAgentServer;
let createHost: typeof import("@/server/hosts/host-registry").createHost;

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "gpudesk-bundle-build-"));
  bundle = await buildHostBundle(repoRoot, path.join(work, "gpudesk.mjs"));
  // Nothing but the bundle in the directory (and none in the parents: os.tmpdir() holds no node_modules).
  alone = mkdtempSync(path.join(os.tmpdir(), "gpudesk-bundle-alone-"));
  copyFileSync(bundle.file, path.join(alone, "gpudesk.mjs"));

  await useTestDatabase();
  ({ createHost } = await import("@/server/hosts/host-registry"));
  const { startTestAgentServer } = await import("@/server/testing/agent-server");
  server = await startTestAgentServer();
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(alone, { recursive: true, force: true });
});

/** Runs the bundle from its empty directory, with an environment that points nowhere near the checkout. */
function aloneEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: alone, ...extra } as unknown as NodeJS.ProcessEnv;
}

function runAlone(args: string[]) {
  return spawnSync(process.execPath, ["gpudesk.mjs", ...args], {
    cwd: alone,
    env: aloneEnv(),
    encoding: "utf8",
    timeout: 30_000,
  });
}

describe("the host bundle", () => {
  it("is built only from the host-side code (lib/, agent, collector, member CLI) and no server package", () => {
    const outside = bundle.inputs.filter((input) => {
      if (input.startsWith("node_modules/")) {
        const parts = input.split("/");
        return SERVER_PACKAGES.includes(parts[1].startsWith("@") ? `${parts[1]}/${parts[2]}` : parts[1]);
      }
      return !HOST_SIDE.some((folder) => input.startsWith(folder)) && input !== "package.json";
    });
    expect(outside).toEqual([]);
    expect(bundle.bytes).toBeLessThan(HOST_BUNDLE_TARGET_BYTES);
  });

  it("runs alone in an empty directory: a shebang, --version, --help without server commands", () => {
    expect(readdirSync(alone)).toEqual(["gpudesk.mjs"]);
    expect(readFileSync(path.join(alone, "gpudesk.mjs"), "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
    const version = runAlone(["--version"]);
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(GPUDESK_VERSION);

    const help = runAlone(["--help"]);
    expect(help.status, help.stderr).toBe(0);
    const commands = [...help.stdout.matchAll(/^ {2}([a-z]+)\b/gm)].map((match) => match[1]);
    expect(commands).toEqual(["agent", "login", "status", "whois", "reserve", "env", "run", "usage", "list", "release", "keep", "extend", "help"]);
  });

  it("keeps the agent's --once --json contract: one reading of the GPUs on stdout", () => {
    const result = runAlone(["agent", "--once", "--json", "--nvidia-smi", fakeNvidiaSmi, "--host-name", "bundle-node"]);
    expect(result.status, result.stderr).toBe(0);
    const reading = JSON.parse(result.stdout) as { host: { name: string }; gpus: { name: string; memoryTotalMiB: number }[] };
    expect(reading.host.name).toBe("bundle-node");
    expect(reading.gpus.length).toBeGreaterThan(0);
    expect(reading.gpus[0].name).toBe("NVIDIA H200");
  });

  it("says what is wrong with a bad flag, in one line", () => {
    const result = runAlone(["agent", "--once", "--interval", "soon", "--source", "simulated"]);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^gpudesk: --interval /);
  });

  it("pushes a host's GPUs to a real server: the host appears live", async () => {
    const hostName = uniqueName("bundle-node");
    const { host, token } = await createHost(hostName);
    let log = "";
    const args = ["gpudesk.mjs", "agent", "--server", server.url, "--nvidia-smi", fakeNvidiaSmi, "--interval", "500ms"];
    const agent: ChildProcess = spawn(process.execPath, args, {
      cwd: alone,
      env: aloneEnv({ GPUDESK_AGENT_TOKEN: token }),
      stdio: ["ignore", "ignore", "pipe"],
    });
    agent.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
    try {
      await expect
        .poll(() => server.fleet.current().gpus.filter((gpu) => gpu.hostId === host.id).length, { timeout: 20_000 })
        .toBeGreaterThan(0);
      const live = server.fleet.current().hosts.find((entry) => entry.id === host.id);
      expect(live?.online, log).toBe(true);
    } finally {
      agent.kill("SIGTERM");
    }
  }, 60_000);
});
