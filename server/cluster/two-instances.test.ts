import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { io as connectSocket, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live/live-events";
import { applyDeltaWire, applySnapshotWire, findHost, gpusOfHost, initialLiveFleetState } from "@/lib/live/live-fleet-state";
import { LIVE_FORMAT_VERSION, type FleetDeltaWire, type FleetSnapshotWire } from "@/lib/live/live-wire";
import { productionBuildProblem } from "@/server/core/build";
import { migrateDatabase } from "@/server/core/migrate";
import { repoRoot } from "@/server/core/paths";
import {
  createTestPostgresDatabase,
  dropTestPostgresDatabases,
  newRunPrefix,
  POSTGRES_REQUIRED,
  postgresUnavailable,
  TEST_POSTGRES_URL,
} from "@/server/testing/postgres";
import { redisForTests, TEST_REDIS_URL, uniqueRedisPrefix } from "@/server/testing/redis";

/*
 * Two real `gpudesk serve` processes on one PostgreSQL database and one Redis: an agent
 * on each, a viewer on each that must see the other's host live, exactly one
 * leader of the background jobs, one alert and one webhook delivery for one
 * event, and a SIGKILLed leader whose jobs the survivor takes over.
 */

const LEADER_TTL_MS = 3000;
const redisUp = await redisForTests("the two-instance test");
const postgresDown = await postgresUnavailable();
if (postgresDown) {
  const where = new URL(TEST_POSTGRES_URL).host;
  if (POSTGRES_REQUIRED) throw new Error(`the two-instance test needs PostgreSQL at ${where}: ${postgresDown}`);
  console.warn(`SKIPPED: the two-instance test needs PostgreSQL at ${where} (${postgresDown}; set GPUDESK_TEST_POSTGRES_URL)`);
}
const reachable = redisUp && !postgresDown;

interface Health {
  ok: boolean;
  cluster?: { instance: string; mode: string; leader: boolean; jobs: string[] };
}

interface Instance {
  name: string;
  url: string;
  child: ChildProcess;
  output: string[];
}

const children: ChildProcess[] = [];
const cli = path.join(repoRoot, "bin", "gpudesk.js");

function spawnCli(args: string[], env: Record<string, string>, output: string[]): ChildProcess {
  const child = spawn(process.execPath, [cli, ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => output.push(...chunk.split("\n").filter(Boolean)));
  }
  children.push(child);
  return child;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function health(instance: Instance): Promise<Health | null> {
  try {
    const response = await fetch(`${instance.url}/api/health`, { signal: AbortSignal.timeout(3000) });
    return response.ok ? ((await response.json()) as Health) : null;
  } catch {
    return null;
  }
}

async function waitFor<T>(what: string, check: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs: number, logs: () => string[] = () => []): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${logs().slice(-40).join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A browser's view of `/live`: the snapshot, then every delta applied to it. */
function watchFleet(url: string, token: string) {
  // Merged as a browser merges them: a delta brings a host only when what is shown of it changed.
  let state = initialLiveFleetState;
  let snapshots = 0;
  const socket: Socket<LiveServerToClient, LiveClientToServer> = connectSocket(`${url}/live`, {
    auth: { token, v: LIVE_FORMAT_VERSION },
    transports: ["websocket"],
    reconnection: false,
  });
  socket.on("fleet:snapshot", (snapshot: FleetSnapshotWire) => {
    snapshots += 1;
    state = applySnapshotWire(state, snapshot, Date.now());
  });
  socket.on("fleet:delta", (delta: FleetDeltaWire) => {
    state = applyDeltaWire(state, delta, Date.now()).state;
  });
  const host = (id: string) => findHost(state, id);
  return {
    socket,
    host,
    gpus: (id: string) => {
      const found = host(id);
      return found ? gpusOfHost(state, found) : [];
    },
    snapshots: () => snapshots,
    /** The host is online with a reading newer than `sinceMs`. */
    liveSince: (id: string, sinceMs: number) => {
      const found = host(id);
      return Boolean(found?.online && found.lastSeenAt && Date.parse(found.lastSeenAt) > sinceMs);
    },
  };
}

describe.skipIf(!reachable)("two instances on one database and one Redis", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-cluster-"));
  const postgresRun = newRunPrefix();
  let databaseUrl = "";
  const prefix = uniqueRedisPrefix("cluster");
  const webhookBodies: string[] = [];
  const webhookServer = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      webhookBodies.push(body);
      res.writeHead(200).end();
    });
  });
  let a: Instance;
  let b: Instance;
  let db: typeof import("@/server/core/db");

  const serverEnv = (name: string, port: number): Record<string, string> => ({
    PORT: String(port),
    HOST: "127.0.0.1",
    GPUDESK_DATA_DIR: path.join(dir, name),
    DATABASE_URL: databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    GPUDESK_REDIS_PREFIX: prefix,
    GPUDESK_LEADER_TTL_MS: String(LEADER_TTL_MS),
    GPUDESK_LOCAL_AGENT: "off",
    GPUDESK_AUTH_SECRET: "cluster-test-secret-cluster-test-secret",
    GPUDESK_OFFLINE_AFTER_MS: "3000",
    GPUDESK_ALERT_HOST_OFFLINE_AFTER: "2s",
  });

  async function startInstance(name: string, timeoutMs: number): Promise<Instance> {
    const port = await freePort();
    mkdirSync(path.join(dir, name), { recursive: true });
    const output: string[] = [];
    const child = spawnCli(["serve"], serverEnv(name, port), output);
    const instance = { name, url: `http://127.0.0.1:${port}`, child, output };
    await waitFor(`instance ${name} answers /api/health`, async () => {
      if (child.exitCode !== null) throw new Error(`instance ${name} exited with ${child.exitCode}:\n${output.slice(-40).join("\n")}`);
      return (await health(instance))?.ok;
    }, timeoutMs, () => output);
    return instance;
  }

  function startAgent(instance: Instance, hostName: string, token: string): ChildProcess {
    const output: string[] = [];
    return spawnCli(["agent", "--server", instance.url, "--source", "simulated", "--host-name", hostName, "--interval", "1s"], { GPUDESK_AGENT_TOKEN: token }, output);
  }

  beforeAll(async () => {
    // Both instances run the production build made before the tests (`npm test` builds first).
    const problem = productionBuildProblem(repoRoot);
    if (problem) throw new Error(`this test runs the built server, and ${problem}`);
    databaseUrl = await createTestPostgresDatabase(postgresRun);
    process.env.DATABASE_URL = databaseUrl;
    process.env.GPUDESK_DATA_DIR = dir;
    await migrateDatabase(databaseUrl, repoRoot);
    db = await import("@/server/core/db");
    await new Promise<void>((resolve) => webhookServer.listen(0, "127.0.0.1", resolve));
    // The first instance leads before the second joins: which one leads is then known.
    a = await startInstance("a", 120_000);
    await waitFor("instance a leads", async () => (await health(a))?.cluster?.leader, 20_000, () => a.output);
    b = await startInstance("b", 120_000);
  }, 300_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    // Connections the killed instances left open would hold close() until they time out.
    webhookServer.closeAllConnections();
    await new Promise((resolve) => webhookServer.close(resolve));
    await db?.disconnectDb();
    await dropTestPostgresDatabases(postgresRun);
    rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it("shares live hosts, runs the background jobs once, and hands them over when the leader dies", async () => {
    const { createHost } = await import("@/server/hosts/host-registry");
    const { createPersonalToken } = await import("@/server/auth/tokens");
    const { createUser } = await import("@/server/auth/users");
    const suffix = prefix.slice(-8);
    const hostA = await createHost(`cluster-a-${suffix}`);
    const hostB = await createHost(`cluster-b-${suffix}`);
    // The viewers watch the member scope (the fleet view's feed), as a member's token gives it.
    const watcher = await createUser({ username: `cluster.viewer.${Date.now()}`, password: "cluster-viewer-password" });
    const viewerToken = (await createPersonalToken(watcher.id, "cluster viewers")).token;
    const webhookUrl = `http://127.0.0.1:${(webhookServer.address() as AddressInfo).port}/hook`;
    await db.db().webhook.create({ data: { url: webhookUrl, format: "json", kinds: JSON.stringify(["host_offline"]) } });

    // Both instances report the cluster; exactly one leads, and it runs every job.
    const [healthA, healthB] = await Promise.all([health(a), health(b)]);
    expect(healthA?.cluster).toMatchObject({ mode: "redis", leader: true });
    expect(healthB?.cluster).toMatchObject({ mode: "redis", leader: false, jobs: [] });
    // The tick's one leader job is named after its leader consumers, the first three of which are these (server/main/start-tick.ts).
    expect(healthA?.cluster?.jobs).toEqual(expect.arrayContaining([expect.stringMatching(/^alerts, enforcement(,| and) webhook deliveries\b/), "waitlist", "history retention"]));
    expect(healthA?.cluster?.instance).not.toBe(healthB?.cluster?.instance);

    // An agent on each instance; a viewer on each sees the other instance's host live.
    const startedAt = Date.now();
    const agentA = startAgent(a, hostA.host.name, hostA.token);
    startAgent(b, hostB.host.name, hostB.token);
    const viewerOnB = watchFleet(b.url, viewerToken);
    const viewerOnA = watchFleet(a.url, viewerToken);
    await waitFor("the viewer on B sees A's host live", () => viewerOnB.liveSince(hostA.host.id, startedAt), 60_000, () => b.output);
    await waitFor("the viewer on A sees B's host live", () => viewerOnA.liveSince(hostB.host.id, startedAt), 60_000, () => a.output);
    expect(viewerOnB.host(hostA.host.id)?.gpuUuids.length).toBeGreaterThan(0);
    // Deltas keep coming from the other instance's agent: a newer reading within a few seconds.
    const seenAt = Date.parse(viewerOnB.host(hostA.host.id)!.lastSeenAt!);
    await waitFor("a newer reading of A's host on B", () => viewerOnB.liveSince(hostA.host.id, seenAt), 10_000);

    // The relay carries A's readings compactly (rows of what changed): B's viewer sees the values A's viewer sees.
    const reading = await waitFor("one reading of A's host seen on both instances", () => {
      const onA = viewerOnA.gpus(hostA.host.id);
      const onB = viewerOnB.gpus(hostA.host.id);
      const same = onA.length > 0 && onA.length === onB.length && onA.every((gpu, i) => gpu.sampledAt === onB[i].sampledAt);
      return same ? { onA, onB } : null;
    }, 15_000);
    // Rounded: a GPU's first entry in a feed comes whole, later ones as rows rounded to what pages show.
    const shown = (gpus: typeof reading.onA) =>
      gpus.map((gpu) => ({
        uuid: gpu.uuid,
        values: [gpu.utilizationGpuPct, gpu.memoryUsedMiB, gpu.powerDrawW, gpu.temperatureC].map((value) => (value === null ? null : Math.round(value))),
        processes: gpu.processes.map((process) => [process.pid, process.user, Math.round(process.usedMemoryMiB ?? -1)]),
      }));
    expect(shown(reading.onB)).toEqual(shown(reading.onA));

    // A browser that (re)connects to B gets every host in its first snapshot.
    const lateViewer = watchFleet(b.url, viewerToken);
    await waitFor("the late viewer's snapshot", () => lateViewer.snapshots() > 0, 10_000);
    expect(lateViewer.host(hostA.host.id)?.online).toBe(true);
    expect(lateViewer.host(hostB.host.id)?.online).toBe(true);
    lateViewer.socket.disconnect();

    // The agent on A stops: offline on B too, one alert (the leader's), one webhook delivery.
    agentA.kill("SIGKILL");
    await waitFor("A's host offline on B", () => viewerOnB.host(hostA.host.id)?.online === false, 15_000);
    const offlineAlerts = () => db.db().alert.findMany({ where: { kind: "host_offline", hostId: hostA.host.id }, select: { id: true, closedAt: true } });
    const [alert] = await waitFor("the host_offline alert", async () => ((await offlineAlerts()).length > 0 ? offlineAlerts() : null), 20_000, () => a.output);
    const deliveriesOf = (id: string) => webhookBodies.filter((body) => (JSON.parse(body) as { alert?: { id?: string } }).alert?.id === id);
    await waitFor("the webhook delivery", () => deliveriesOf(alert.id).length > 0, 15_000, () => a.output);
    // Time for a second instance to do the same, had it been running the jobs too.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(await offlineAlerts()).toHaveLength(1);
    expect(deliveriesOf(alert.id)).toHaveLength(1);

    // The leader dies without a word: B takes the jobs within the lock's TTL and keeps serving its viewer.
    const killedAt = Date.now();
    a.child.kill("SIGKILL");
    const tookOver = await waitFor("B leads", async () => {
      const now = await health(b);
      return now?.cluster?.leader && now.cluster.jobs.length >= 3 ? Date.now() : null;
    }, LEADER_TTL_MS + 15_000, () => b.output);
    expect(tookOver - killedAt).toBeLessThan(LEADER_TTL_MS + 5000);
    expect(b.output.some((line) => line.includes("leads the background jobs (took the lock)"))).toBe(true);
    const afterKill = Date.now();
    await waitFor("B's own host still live on B", () => viewerOnB.liveSince(hostB.host.id, afterKill), 10_000);
    expect(viewerOnB.socket.connected).toBe(true);
    // Every relay message was understood (none skipped as malformed or of another format).
    expect(b.output.filter((line) => line.includes("cluster: ignored"))).toEqual([]);

    // The new leader carried on with the stored alert instead of opening it again.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await offlineAlerts()).toHaveLength(1);
    expect(deliveriesOf(alert.id)).toHaveLength(1);
    viewerOnB.socket.disconnect();
    viewerOnA.socket.disconnect();
  }, 180_000);
});
