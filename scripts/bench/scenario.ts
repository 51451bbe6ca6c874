/**
 * One benchmark scenario: a fresh database, the production server (one or
 * two instances), simulated agents in a few processes, viewers in a few
 * more, a warm-up, a measured window, and the figures.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { simulatedFleet } from "@/host/collector/simulated/simulated-source";
import { createTestPostgresDatabase, dropTestPostgresDatabases, newRunPrefix } from "@/server/testing/postgres";
import type { AgentStages, AgentWorkerConfig } from "./agent-worker";
import { CpuMeter, rssMiB } from "./processes";
import type { BenchDatabase } from "./setup-database";
import { addTallies, LatencyHistogram, meanMax, type LatencySummary, type UpdateTally } from "./stats";
import type { ViewerReport, ViewerWorkerConfig } from "./viewer-worker";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const cli = path.join(repoRoot, "bin", "gpudesk.js");
const here = path.join(repoRoot, "scripts", "bench");

export interface ScenarioOptions {
  gpus: number;
  instances: number;
  viewers: number;
  durationS: number;
  warmupS: number;
  agentProcesses: number;
  viewerProcesses: number;
  lateMs: number;
  /** First port; instance i listens on basePort + i. */
  basePort: number;
  redisUrl: string;
  seed: number;
  /** Write a V8 CPU profile of each server into this folder (at exit). */
  cpuProfileDir: string | null;
  /** Before the window, wait (at most 5 minutes) until the 1-minute load average is below this; 0: do not wait. */
  quietLoad: number;
  /** Keep the default alert hold times (alerts open for most GPUs at once during the run). */
  alerts: boolean;
  /** The servers run with socket.io's per-message compression (GPUDESK_SOCKET_DEFLATE=1). */
  socketDeflate: boolean;
  /** Run on a fresh database of the test PostgreSQL server (GPUDESK_TEST_POSTGRES_URL), dropped afterwards, instead of SQLite. */
  postgres?: boolean;
  /** Node flags for the servers alone (e.g. `--max-semi-space-size=32`), before the script. */
  serverNodeArgs?: string[];
  /** Niceness of the server, agent and viewer processes (negative: ahead of other work; needs root). */
  nice: number;
  /**
   * Pin instance i to CPU core i (`taskset`), so that two instances do not
   * share a core, and the harness (agents, viewers) to the cores left over,
   * if any: one instance on two cores has a core of its own.
   */
  taskset: boolean;
  /**
   * Each viewer process expands a delta once and its viewers read that
   * expansion (each still receives, parses and times every frame itself):
   * at 10,000 GPUs fifty browser-like expansions a second are more than the
   * harness's share of two cores.
   */
  decodeOncePerProcess?: boolean;
  /** The simulated agents' interval between readings (ms); 1000 unless the agents' `--interval` is what is measured. */
  agentIntervalMs?: number;
  log: (line: string) => void;
}

export interface ScenarioResult {
  gpus: number;
  hosts: number;
  instances: number;
  viewers: number;
  windowS: number;
  latencyMs: LatencySummary;
  /** The same, for the first viewer of each viewer process to decode each delta (without the wait behind the others). */
  firstViewerLatencyMs?: LatencySummary;
  updates: UpdateTally;
  /** GPU readings the agents took in the window (GPUs × seconds when none skipped a second). */
  readingsTaken: number;
  lateMs: number;
  viewerDisconnects: number;
  /** Per instance: CPU in cores over the window, RSS, event loop. */
  servers: {
    cpuCores: number;
    rssMiB: { mean: number; max: number };
    eventLoopDelayMs: { p50: number; p99: number; max: number; mean: number };
    eventLoopUtilization: number;
    /** SQL statements the server prepared in the window, per second (SQLite), and the most frequent ones. */
    sqlStatementsPerSecond: number;
    sqlTop: [string, number][];
  }[];
  /** The load the benchmark itself puts on the machine (same cores as the server). */
  harness: { agentCpuCores: number; viewerCpuCores: number };
  deltaKiBPerViewerPerSecond: number;
  deltasPerViewerPerSecond: number;
  /** Where the latency goes, stage by stage (docs/benchmark.md). */
  stagesMs?: {
    /** Agent: the newest reading of a batch sampled → batch sent. */
    agentSampleToSend: LatencySummary;
    /** Agent: batch sent → server's acknowledgement (wire, server's wait, validation, ingest). */
    agentSendToAck: LatencySummary;
    /** Reading sampled → the server drains it into a delta (delta's `t`). */
    sampleToDelta: LatencySummary;
    /** Delta's `t` → a viewer's handler, every viewer (includes the wait behind the process's other viewers). */
    deltaToViewer: LatencySummary;
    /** The same for the first viewer of each process. */
    deltaToFirstViewer: LatencySummary;
    /** One viewer decoding one delta (expandFleetDelta), mean ms. */
    decodePerDeltaMs: number;
  };
  /** With several instances: what they published on Redis (the relay and socket.io's adapter), KiB per second. */
  redisKiBPerSecond?: number;
  /** With --taskset: the core each instance was pinned to. */
  pinnedCores?: number[];
  /** With --taskset: the cores the agents and viewers were pinned to (null: any core, none left over). */
  harnessCores?: number[] | null;
  /** The viewers of a process read one expansion of each delta (`--decode-once`). */
  decodeOncePerProcess?: boolean;
  /** The servers' own Node flags (`--server-node-args`). */
  serverNodeArgs?: string[];
  /** The database was PostgreSQL (`--postgres`). */
  postgres?: boolean;
  loadAverage: { before: number[]; after: number[] };
}

interface Worker<Message> {
  child: ChildProcess;
  messages: Message[];
  waitFor: (test: (message: Message) => boolean, timeoutMs: number, what: string) => Promise<Message>;
}

/**
 * The command under `nice -n N` when N is not 0 (nice execs it: the pid
 * stays the process's own). A negative N needs root; it lets the benchmark
 * run ahead of other work on a shared machine.
 */
function niced(nice: number, command: string, args: string[]): [string, string[]] {
  return nice === 0 ? [command, args] : ["nice", ["-n", String(nice), command, ...args]];
}

/** The command under `taskset -c cores` when cores are given (taskset execs it too). */
function pinned(cores: number | readonly number[] | null, [command, args]: [string, string[]]): [string, string[]] {
  if (cores === null) return [command, args];
  return ["taskset", ["-c", [cores].flat().join(","), command, ...args]];
}

/**
 * Counts the bytes published under the cluster's Redis prefix (the fleet
 * relay and socket.io's adapter) while `counting` is true.
 */
async function watchRedis(redisUrl: string, prefix: string): Promise<{ start: () => void; bytes: () => number; close: () => Promise<void> }> {
  const { Redis } = await import("ioredis");
  const client = new Redis(redisUrl, { lazyConnect: true });
  await client.connect();
  let counting = false;
  let bytes = 0;
  client.on("pmessageBuffer", (_pattern: Buffer, _channel: Buffer, message: Buffer) => {
    if (counting) bytes += message.length;
  });
  await client.psubscribe(`${prefix}*`);
  return {
    start: () => void (counting = true),
    bytes: () => {
      counting = false;
      return bytes;
    },
    close: async () => void (await client.quit().catch(() => client.disconnect())),
  };
}

/** A TypeScript worker with an IPC channel, run through tsx like the gpudesk CLI. */
export function startWorker<Message>(file: string, config: unknown, nice: number, log: (line: string) => void, cores: number[] | null): Worker<Message> {
  const child = spawn(...pinned(cores, niced(nice, process.execPath, ["--import", "tsx", path.join(here, file)])), {
    cwd: repoRoot,
    stdio: ["ignore", "inherit", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    // Connection trouble is worth seeing at once; the rest only when the worker fails.
    stderr = (stderr + text).slice(-4000);
    if (/disconnect|cannot connect|refused/.test(text)) log(`  ${path.basename(file, ".ts")}: ${text.trim().split("\n")[0]}`);
  });
  const messages: Message[] = [];
  const waiters = new Set<() => void>();
  child.on("message", (message: Message) => {
    messages.push(message);
    for (const wake of waiters) wake();
  });
  child.send(config as object);
  return {
    child,
    messages,
    waitFor(test, timeoutMs, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.findLast(test);
          if (found !== undefined) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          } else if (child.exitCode !== null) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`${file} exited with ${child.exitCode} while waiting for ${what}:\n${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${what} from ${file}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

/** Every server this run started and has not stopped yet: a Ctrl-C of the runner must not leave them behind. */
const liveServers = new Set<ChildProcess>();

export function killServers(): void {
  for (const child of liveServers) child.kill("SIGTERM");
}

export async function stopProcess(child: ChildProcess, message?: object): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (message && child.connected) child.send(message);
  else child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Environment for gpudesk commands against the scenario's database (SQLite in its data directory). */
function scenarioEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GPUDESK_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  Object.assign(env, extra);
  return env;
}

export function prepareDatabase(dataDir: string, gpus: number, seed: number, extraEnv: Record<string, string>, extraHost?: string): BenchDatabase {
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", path.join(here, "setup-database.ts"), "--gpus", String(gpus), "--seed", String(seed), ...(extraHost ? ["--extra-host", extraHost] : [])],
    { cwd: repoRoot, env: scenarioEnv(dataDir, extraEnv), encoding: "utf8", timeout: 300_000, maxBuffer: 64 * 2 ** 20 },
  );
  if (result.status !== 0) throw new Error(`preparing the database failed:\n${result.stderr}`);
  // Kept beside the database, so that a kept run (GPUDESK_BENCH_KEEP=1) can be looked at afterwards.
  writeFileSync(path.join(dataDir, "tokens.json"), result.stdout);
  return JSON.parse(result.stdout) as BenchDatabase;
}

export interface RunningServer {
  child: ChildProcess;
  url: string;
  probeFile: string;
  logFile: string;
}

const ALERT_HOLD_VARIABLES = [
  "GPUDESK_ALERT_CONFLICT_AFTER",
  "GPUDESK_ALERT_UNBOOKED_AFTER",
  "GPUDESK_ALERT_IDLE_AFTER",
  "GPUDESK_ALERT_MEMORY_AFTER",
  "GPUDESK_ALERT_HEALTH_AFTER",
  "GPUDESK_ALERT_HOST_OFFLINE_AFTER",
];

export async function startServer(
  dataDir: string,
  port: number,
  instance: number,
  extraEnv: Record<string, string>,
  options: Pick<ScenarioOptions, "cpuProfileDir" | "alerts" | "socketDeflate" | "nice" | "serverNodeArgs">,
  log: (line: string) => void,
  core: number | null = null,
): Promise<RunningServer> {
  const url = `http://127.0.0.1:${port}`;
  const probeFile = path.join(dataDir, `probe-${instance}.json`);
  const logFile = path.join(dataDir, `server-${instance}.log`);
  const out = openSync(logFile, "a");
  const profile = options.cpuProfileDir ? ["--cpu-prof", "--cpu-prof-dir", options.cpuProfileDir] : [];
  const child = spawn(...pinned(core, niced(options.nice, process.execPath, [...profile, ...(options.serverNodeArgs ?? []), "--import", path.join(here, "server-probe.mjs"), cli, "serve"])), {
    cwd: repoRoot,
    env: scenarioEnv(dataDir, {
      PORT: String(port),
      HOST: "127.0.0.1",
      GPUDESK_LOCAL_AGENT: "off",
      GPUDESK_BENCH_PROBE_FILE: probeFile,
      // The simulated fleet starts all at once, so each alert kind would open for hundreds
      // of GPUs in the same second once its hold time passes (834 "unbooked" alerts within
      // 45 s at 1,000 GPUs); the benchmark measures the steady state, where the rules still
      // run every second but open nothing new.
      ...(options.alerts ? {} : Object.fromEntries(ALERT_HOLD_VARIABLES.map((name) => [name, "7d"]))),
      ...(options.socketDeflate ? { GPUDESK_SOCKET_DEFLATE: "1" } : {}),
      ...extraEnv,
    }),
    stdio: ["ignore", out, out],
  });
  liveServers.add(child);
  child.once("exit", () => liveServers.delete(child));
  const started = Date.now();
  // The first start after a source change builds the web app: minutes on a small machine.
  while (Date.now() - started < 600_000) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}; see ${logFile}:\n${readFileSync(logFile, "utf8").slice(-3000)}`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) {
        log(`  instance ${instance} ready on ${url} (pid ${child.pid}) after ${Math.round((Date.now() - started) / 1000)} s`);
        return { child, url, probeFile, logFile };
      }
    } catch {
      // not listening yet
    }
    await sleep(500);
  }
  throw new Error(`server on ${url} did not answer /api/health within 10 minutes; see ${logFile}`);
}

/** GPUs the least informed instance knows (with Redis, every instance holds the whole fleet). */
async function liveGpuCount(servers: RunningServer[]): Promise<number> {
  const counts: number[] = [];
  for (const server of servers) {
    const health = (await (await fetch(`${server.url}/api/health`)).json()) as { gpus: number };
    counts.push(health.gpus);
  }
  return Math.min(...counts);
}

/** Asks the probe in the server for what it saw since the last ask, and waits for the answer. */
async function readProbe(server: RunningServer): Promise<{
  at: number;
  eventLoopDelayMs: { p50: number; p99: number; max: number; mean: number };
  eventLoopUtilization: number;
  sqlStatements?: number;
  sqlTop?: [string, number][];
}> {
  const asked = Date.now();
  server.child.kill("SIGUSR2");
  // A loaded server may take a while to run the handler; that delay is itself a finding.
  for (let i = 0; i < 600; i++) {
    try {
      if (statSync(server.probeFile).mtimeMs >= asked - 5) {
        const report = JSON.parse(readFileSync(server.probeFile, "utf8"));
        if (report.at >= asked) return report;
      }
    } catch {
      // not written yet
    }
    await sleep(50);
  }
  throw new Error(`the server probe did not answer (${server.probeFile})`);
}

/** Other work on the machine skews every figure: wait for a calmer minute when asked to. */
async function waitForQuiet(threshold: number, log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + 5 * 60_000;
  if (os.loadavg()[0]! < threshold) return;
  log(`  load average ${os.loadavg()[0]!.toFixed(2)}: waiting for it to fall below ${threshold}`);
  while (os.loadavg()[0]! >= threshold && Date.now() < deadline) await sleep(5_000);
  log(`  load average now ${os.loadavg()[0]!.toFixed(2)}`);
}

/** Spreads items over n buckets, round robin. */
function spread<T>(items: T[], n: number): T[][] {
  const buckets: T[][] = Array.from({ length: n }, () => []);
  items.forEach((item, i) => buckets[i % n]!.push(item));
  return buckets.filter((bucket) => bucket.length > 0);
}

export function redisSupported(): boolean {
  return readFileSync(path.join(repoRoot, "server", "core", "env.ts"), "utf8").includes("REDIS_URL");
}

export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const { log } = options;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `gpudesk-bench-${options.gpus}x${options.instances}-`));
  const servers: RunningServer[] = [];
  const workers: ChildProcess[] = [];
  let redis: Awaited<ReturnType<typeof watchRedis>> | null = null;
  let postgresRun: string | null = null;
  const cores = options.taskset ? Array.from({ length: options.instances }, (_, i) => i % os.availableParallelism()) : null;
  const leftOver = cores ? Array.from({ length: os.availableParallelism() }, (_, i) => i).filter((core) => !cores.includes(core)) : [];
  const harnessCores = leftOver.length > 0 ? leftOver : null;
  try {
    const shared: Record<string, string> = {};
    if (options.postgres) {
      postgresRun = newRunPrefix();
      shared.DATABASE_URL = await createTestPostgresDatabase(postgresRun);
    }
    log(`  preparing ${options.gpus} GPUs in ${options.postgres ? "a PostgreSQL database" : dataDir}`);
    const database = prepareDatabase(dataDir, options.gpus, options.seed, shared);
    if (options.instances > 1) {
      shared.REDIS_URL = options.redisUrl;
      // A cluster of its own: other servers on the same Redis (tests, other runs) use other prefixes.
      shared.GPUDESK_REDIS_PREFIX = `gpudesk-bench-${process.pid}-${options.gpus}`;
      // Both instances must accept each other's session cookies.
      shared.GPUDESK_AUTH_SECRET = `bench-${"x".repeat(40)}`;
    }
    // One after the other: the first may build the web app, and each migrates the shared database.
    for (let i = 0; i < options.instances; i++) {
      servers.push(await startServer(dataDir, options.basePort + i, i, shared, options, log, cores ? cores[i]! : null));
    }
    if (options.instances > 1) redis = await watchRedis(options.redisUrl, shared.GPUDESK_REDIS_PREFIX!);

    // Agents: hosts spread over the instances (as a load balancer would), then over the agent processes.
    const hosts = database.hosts.map((host, i) => ({ ...host, serverUrl: servers[i % servers.length]!.url }));
    const agentWorkers = spread(hosts, options.agentProcesses).map((part) => {
      const config: AgentWorkerConfig = { seed: options.seed, gpus: options.gpus, intervalMs: options.agentIntervalMs ?? 1000, hosts: part };
      return { size: part.length, worker: startWorker<{ type: string; count?: number; taken?: number; stages?: AgentStages }>("agent-worker.ts", config, options.nice, log, harnessCores) };
    });
    workers.push(...agentWorkers.map(({ worker }) => worker.child));
    await Promise.all(
      agentWorkers.map(({ size, worker }) =>
        worker.waitFor((m) => m.type === "connected" && (m.count ?? 0) >= size, 300_000, `${size} agent connections`),
      ),
    );
    const deadline = Date.now() + 60_000;
    while ((await liveGpuCount(servers)) < options.gpus) {
      if (Date.now() > deadline) throw new Error(`the servers know ${await liveGpuCount(servers)} of ${options.gpus} GPUs after a minute`);
      await sleep(500);
    }
    log(`  ${hosts.length} agents in ${agentWorkers.length} processes report ${options.gpus} GPUs`);

    // Viewers: spread over the instances, then over the viewer processes.
    const gpuUuids = simulatedFleet({ seed: options.seed, gpuCount: options.gpus }).flatMap((spec) => spec.gpus.map((gpu) => gpu.uuid));
    const viewerUrls = Array.from({ length: options.viewers }, (_, i) => servers[i % servers.length]!.url);
    const viewerWorkers = spread(viewerUrls, options.viewerProcesses).map((urls) => {
      const config: ViewerWorkerConfig = { serverUrls: urls, viewerToken: database.memberToken, gpuUuids, lateMs: options.lateMs, decodeOnce: options.decodeOncePerProcess ?? false };
      return { size: urls.length, worker: startWorker<ViewerReport | { type: "connected"; count: number }>("viewer-worker.ts", config, options.nice, log, harnessCores) };
    });
    workers.push(...viewerWorkers.map(({ worker }) => worker.child));
    await Promise.all(
      viewerWorkers.map(({ size, worker }) =>
        worker.waitFor((m) => m.type === "connected" && m.count >= size, 600_000, `${size} viewer connections`),
      ),
    );
    log(`  ${options.viewers} viewers in ${viewerWorkers.length} processes connected; warming up ${options.warmupS} s`);
    await sleep(options.warmupS * 1000);
    if (options.quietLoad > 0) await waitForQuiet(options.quietLoad, log);

    // The window starts on a whole second (samples are taken on whole seconds).
    const fromMs = Math.ceil((Date.now() + 200) / 1000) * 1000;
    const toMs = fromMs + options.durationS * 1000;
    for (const { worker } of [...viewerWorkers, ...agentWorkers]) worker.child.send({ type: "window", fromMs, toMs });
    await sleep(fromMs - Date.now());
    const loadBefore = os.loadavg();
    await Promise.all(servers.map(readProbe));
    const serverCpu = new CpuMeter(servers.map((server) => server.child.pid!));
    const agentCpu = new CpuMeter(agentWorkers.map(({ worker }) => worker.child.pid!));
    const viewerCpu = new CpuMeter(viewerWorkers.map(({ worker }) => worker.child.pid!));
    const rss = servers.map(() => [] as number[]);
    redis?.start();
    while (Date.now() < toMs) {
      servers.forEach((server, i) => rss[i]!.push(rssMiB(server.child.pid!)));
      await sleep(Math.min(1000, toMs - Date.now()));
    }
    const serverCores = serverCpu.cores();
    const redisBytes = redis?.bytes();
    const agentCores = [...agentCpu.cores().values()].reduce((a, b) => a + b, 0);
    const viewerCores = [...viewerCpu.cores().values()].reduce((a, b) => a + b, 0);
    const probes = await Promise.all(servers.map(readProbe));
    const loadAfter = os.loadavg();
    // Samples of the window's last seconds may still be on their way: what has not come
    // by now counts as lost, what came after the late threshold as late.
    const graceMs = Math.max(options.lateMs + 2000, 10_000);
    log(`  window done; waiting ${graceMs / 1000} s for late updates`);
    await sleep(graceMs);

    const histogram = new LatencyHistogram();
    const firstHistogram = new LatencyHistogram();
    let updates: UpdateTally = { expected: 0, onTime: 0, late: 0, lost: 0 };
    let disconnects = 0;
    let bytes = 0;
    let deltas = 0;
    const stage = {
      agentSampleToSend: new LatencyHistogram(),
      agentSendToAck: new LatencyHistogram(),
      sampleToDelta: new LatencyHistogram(),
      deltaToViewer: new LatencyHistogram(),
      deltaToFirstViewer: new LatencyHistogram(),
    };
    let decodeMicros = 0;
    let decodedDeltas = 0;
    for (const { size, worker } of viewerWorkers) {
      const asked = worker.messages.length;
      worker.child.send({ type: "report" });
      const report = (await worker.waitFor(
        (m) => m.type === "report" && worker.messages.indexOf(m) >= asked,
        60_000,
        "the viewers' report",
      )) as ViewerReport;
      histogram.merge(LatencyHistogram.fromSparse(report.histogram));
      firstHistogram.merge(LatencyHistogram.fromSparse(report.firstHistogram));
      updates = addTallies(updates, report.tally);
      disconnects += report.disconnects;
      bytes += report.bytesPerViewerPerSecond * size;
      deltas += report.deltasPerViewerPerSecond * size;
      stage.sampleToDelta.merge(LatencyHistogram.fromSparse(report.stages.sampleToDelta));
      stage.deltaToViewer.merge(LatencyHistogram.fromSparse(report.stages.deltaToViewer));
      stage.deltaToFirstViewer.merge(LatencyHistogram.fromSparse(report.stages.deltaToFirstViewer));
      decodeMicros += report.stages.decodeMicros;
      decodedDeltas += report.stages.decodedDeltas;
    }

    let taken = 0;
    for (const { worker } of agentWorkers) {
      const asked = worker.messages.length;
      worker.child.send({ type: "report" });
      const report = await worker.waitFor(
        (m) => m.type === "report" && worker.messages.indexOf(m) >= asked,
        60_000,
        "the agents' report",
      );
      taken += report.taken ?? 0;
      if (report.stages) {
        stage.agentSampleToSend.merge(LatencyHistogram.fromSparse(report.stages.sampleToSend));
        stage.agentSendToAck.merge(LatencyHistogram.fromSparse(report.stages.sendToAck));
      }
    }

    return {
      gpus: options.gpus,
      hosts: hosts.length,
      readingsTaken: taken,
      instances: options.instances,
      viewers: options.viewers,
      windowS: options.durationS,
      latencyMs: histogram.summary(),
      firstViewerLatencyMs: firstHistogram.summary(),
      updates,
      lateMs: options.lateMs,
      viewerDisconnects: disconnects,
      servers: servers.map((server, i) => ({
        cpuCores: serverCores.get(server.child.pid!)!,
        rssMiB: meanMax(rss[i]!),
        eventLoopDelayMs: probes[i]!.eventLoopDelayMs,
        eventLoopUtilization: probes[i]!.eventLoopUtilization,
        sqlStatementsPerSecond: (probes[i]!.sqlStatements ?? 0) / options.durationS,
        sqlTop: probes[i]!.sqlTop ?? [],
      })),
      harness: { agentCpuCores: agentCores, viewerCpuCores: viewerCores },
      deltaKiBPerViewerPerSecond: bytes / options.viewers / 1024,
      deltasPerViewerPerSecond: deltas / options.viewers,
      stagesMs: {
        agentSampleToSend: stage.agentSampleToSend.summary(),
        agentSendToAck: stage.agentSendToAck.summary(),
        sampleToDelta: stage.sampleToDelta.summary(),
        deltaToViewer: stage.deltaToViewer.summary(),
        deltaToFirstViewer: stage.deltaToFirstViewer.summary(),
        decodePerDeltaMs: decodedDeltas === 0 ? Number.NaN : decodeMicros / decodedDeltas / 1000,
      },
      ...(redisBytes === undefined ? {} : { redisKiBPerSecond: redisBytes / options.durationS / 1024 }),
      ...(cores ? { pinnedCores: cores, harnessCores } : {}),
      ...(options.decodeOncePerProcess ? { decodeOncePerProcess: true } : {}),
      ...(options.serverNodeArgs?.length ? { serverNodeArgs: options.serverNodeArgs } : {}),
      ...(options.postgres ? { postgres: true } : {}),
      loadAverage: { before: loadBefore, after: loadAfter },
    };
  } finally {
    await redis?.close();
    await Promise.all(workers.map((child) => stopProcess(child, { type: "stop" })));
    await Promise.all(servers.map((server) => stopProcess(server.child)));
    if (postgresRun && process.env.GPUDESK_BENCH_KEEP !== "1") await dropTestPostgresDatabases(postgresRun);
    if (process.env.GPUDESK_BENCH_KEEP !== "1") rmSync(dataDir, { recursive: true, force: true });
    else log(`  kept ${dataDir}`);
  }
}
