/**
 * `npm run bench`: the live path under load (issue 9). For each scenario it
 * starts the production server, simulated agents in separate processes and
 * viewers on `/live` over real sockets, then reports sample-to-viewer
 * latency, updates lost or late, the server's CPU, memory and event loop;
 * and, in Chromium, the main-thread time per second of the fleet view and
 * the wall display. Writes JSON to bench-results/ and prints a markdown table.
 *
 *   npm run bench                                   # the set: 250, 1000, 4000 GPUs; 4000 on two instances; browser
 *   npm run bench -- --gpus 250,1000 --viewers 50 --duration 30 --instances 1 --no-browser
 *   npm run bench -- --browser-only
 *   npm run bench -- --browser-only --cpu-prof DIR  # and a V8 CPU profile of each page (loading, then steady)
 *   npm run bench -- --latency [--gpus 8,256] [--agent-interval-ms 500] [--changes 30] [--no-browser]
 *                                                   # change → viewer, stage by stage, through the real agent (issue 42)
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { argsOrExit, flag } from "./args";
import { runBrowserBench } from "./browser";
import { runLatencyBench } from "./latency";
import { formatTables, type BenchResults } from "./report";
import { killServers, redisSupported, repoRoot, runScenario, type ScenarioOptions } from "./scenario";

interface Options extends Omit<ScenarioOptions, "gpus" | "instances" | "seed" | "log"> {
  scenarios: { gpus: number; instances: number }[];
  browser: boolean;
  browserGpus: number;
  browserSeconds: number;
  /** Chromium's CPU throttling rate for the browser pages (1: none): the page as on a machine this many times slower. */
  browserCpuThrottle: number;
  out: string;
}

const USAGE = `usage: npm run bench -- [--gpus 250,1000,4000] [--instances 1[,2]] [--viewers 50] [--duration 30]
  [--warmup 10] [--agent-processes 4] [--viewer-processes 2] [--late-ms 1000] [--port 3400]
  [--redis-url redis://127.0.0.1:6379] [--no-browser | --browser-only] [--browser-gpus 256] [--browser-seconds 20] [--browser-cpu-throttle 3]
  [--out bench-results/<date>.json] [--cpu-prof DIR] [--quiet-load 3] [--alerts] [--socket-deflate] [--nice -5] [--taskset]
  [--agent-interval-ms 1000] [--decode-once] [--postgres] [--server-node-args "--max-semi-space-size=32"]
Without --gpus and --instances: 250, 1000 and 4000 GPUs on one instance, and 4000 on two (Redis).

Change → viewer (issue 42): npm run bench -- --latency [--gpus 8,256] [--agent-interval-ms 1000] [--changes 30] [--no-browser] [--port 3400]
  A value changes in a fake nvidia-smi at a random moment, --changes times per fleet size; 8 GPUs go through
  the real host agent, simulated agents carry the rest of --gpus (default 8,256). Prints p50/p90 per stage,
  from the change to the member's /live delta and (without --no-browser) to the fleet view's painted card.`;

const FLAGS = {
  gpus: flag.wholes(null),
  instances: flag.wholes(null),
  viewers: flag.whole(50),
  duration: flag.whole(30),
  warmup: flag.whole(10),
  agentProcesses: flag.whole(4),
  viewerProcesses: flag.whole(2),
  lateMs: flag.whole(1000),
  port: flag.whole(3400),
  redisUrl: flag.text("redis://127.0.0.1:6379"),
  noBrowser: flag.boolean(),
  browserOnly: flag.boolean(),
  browserGpus: flag.whole(256),
  browserSeconds: flag.whole(20),
  browserCpuThrottle: flag.whole(1, { min: 1, max: 20 }),
  out: flag.text(null),
  cpuProf: flag.text(null),
  quietLoad: flag.number(0),
  alerts: flag.boolean(),
  socketDeflate: flag.boolean(),
  nice: flag.number(0),
  taskset: flag.boolean(),
  decodeOnce: flag.boolean(),
  postgres: flag.boolean(),
  serverNodeArgs: flag.text(""),
  agentIntervalMs: flag.whole(1000, { min: 100, max: 60_000 }),
  latency: flag.boolean(),
  changes: flag.whole(30),
};

function parseOptions(argv: string[]): Options {
  const stamp = new Date().toISOString().replace(/:\d\d\.\d+Z$/, "").replace(":", "-");
  const { flags } = argsOrExit(argv, FLAGS, USAGE);
  const options: Options = {
    scenarios: [],
    viewers: flags.viewers,
    durationS: flags.duration,
    warmupS: flags.warmup,
    agentProcesses: flags.agentProcesses,
    viewerProcesses: flags.viewerProcesses,
    lateMs: flags.lateMs,
    basePort: flags.port,
    redisUrl: flags.redisUrl,
    browser: !flags.noBrowser,
    browserGpus: flags.browserGpus,
    browserSeconds: flags.browserSeconds,
    browserCpuThrottle: flags.browserCpuThrottle,
    out: flags.out ?? path.join("bench-results", `${stamp}.json`),
    cpuProfileDir: flags.cpuProf === null ? null : path.resolve(flags.cpuProf),
    quietLoad: flags.quietLoad,
    alerts: flags.alerts,
    socketDeflate: flags.socketDeflate,
    nice: flags.nice,
    taskset: flags.taskset,
    decodeOncePerProcess: flags.decodeOnce,
    postgres: flags.postgres,
    serverNodeArgs: flags.serverNodeArgs.split(/\s+/).filter(Boolean),
    agentIntervalMs: flags.agentIntervalMs,
  };
  if (flags.browserOnly) return options;
  const { gpus, instances } = flags;
  if (gpus === null && instances === null) {
    options.scenarios = [
      { gpus: 250, instances: 1 },
      { gpus: 1000, instances: 1 },
      { gpus: 4000, instances: 1 },
      { gpus: 4000, instances: 2 },
    ];
  } else {
    for (const count of instances ?? [1]) for (const g of gpus ?? [250, 1000, 4000]) options.scenarios.push({ gpus: g, instances: count });
  }
  return options;
}

function machine() {
  const cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? os.cpus()[0]?.model ?? "unknown";
  const git = (args: string[]) => {
    try {
      return execFileSync("git", args, { cwd: repoRoot, encoding: "utf8" }).trim();
    } catch {
      return "unknown";
    }
  };
  return {
    cpuModel,
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    commit: git(["rev-parse", "--short", "HEAD"]),
    loadAverageAtStart: os.loadavg(),
  };
}

/** `--latency`: change → viewer at each fleet size, then its own small result file. */
async function latencyMain(argv: string[]): Promise<void> {
  const { flags } = argsOrExit(argv, FLAGS, USAGE);
  const stamp = new Date().toISOString().replace(/:\d\d\.\d+Z$/, "").replace(":", "-");
  const out = flags.out ?? path.join("bench-results", `latency-${flags.agentIntervalMs}ms-${stamp}.json`);
  const started = { startedAt: new Date().toISOString(), machine: machine() };
  console.log(`gpudesk change → viewer on ${started.machine.cpuModel}, ${started.machine.cores} cores, load ${started.machine.loadAverageAtStart.map((l) => l.toFixed(2)).join(" ")}`);
  const settings = await runLatencyBench({
    gpus: flags.gpus ?? [8, 256],
    intervalMs: flags.agentIntervalMs,
    changes: flags.changes,
    browser: !flags.noBrowser,
    port: flags.port,
    log: (line) => console.log(line),
  });
  mkdirSync(path.dirname(path.resolve(repoRoot, out)), { recursive: true });
  writeFileSync(path.resolve(repoRoot, out), `${JSON.stringify({ ...started, settings }, null, 2)}\n`);
  console.log(`\nresults: ${out}`);
}

async function main(): Promise<void> {
  if (process.argv.includes("--latency")) return latencyMain(process.argv.slice(2));
  const options = parseOptions(process.argv.slice(2));
  const log = (line: string) => console.log(line);
  const results: BenchResults & { machine: ReturnType<typeof machine>; options: Options } = {
    startedAt: new Date().toISOString(),
    machine: machine(),
    options,
    scenarios: [],
    browser: null,
  };
  const save = () => {
    mkdirSync(path.dirname(path.resolve(repoRoot, options.out)), { recursive: true });
    writeFileSync(path.resolve(repoRoot, options.out), `${JSON.stringify(results, null, 2)}\n`);
  };
  log(`gpudesk benchmark on ${results.machine.cpuModel}, ${results.machine.cores} cores, Node ${results.machine.node}, load ${results.machine.loadAverageAtStart.map((l) => l.toFixed(2)).join(" ")}`);

  for (const { gpus, instances } of options.scenarios) {
    log(`\n${gpus} GPUs, ${options.viewers} viewers, ${instances} instance${instances > 1 ? "s" : ""}`);
    if (instances > 1 && !redisSupported()) {
      const skipped = "skipped: this server has no REDIS_URL support yet (server/core/env.ts)";
      log(`  skipped: ${skipped}`);
      results.scenarios.push({ gpus, instances, skipped });
      continue;
    }
    let result;
    try {
      result = await runScenario({ ...options, gpus, instances, seed: 42, log });
    } catch (error) {
      // A scenario the machine cannot carry (say, viewers that never finish connecting) is a result too.
      const skipped = `failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
      log(`  ${skipped}`);
      results.scenarios.push({ gpus, instances, skipped });
      save();
      continue;
    }
    results.scenarios.push(result);
    save();
    log(`  p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms, lost ${result.updates.lost}, late ${result.updates.late}, server ${result.servers.map((s) => s.cpuCores.toFixed(2)).join(" + ")} cores`);
  }

  if (options.browser) {
    const throttled = options.browserCpuThrottle > 1 ? `, CPU throttled ${options.browserCpuThrottle}×` : "";
    log(`\nbrowser: ${options.browserGpus} GPUs, ${options.browserSeconds} s per page${throttled}`);
    results.browser = await runBrowserBench({
      gpus: options.browserGpus,
      seconds: options.browserSeconds,
      port: options.basePort + 90,
      cpuProfileDir: options.cpuProfileDir,
      cpuThrottle: options.browserCpuThrottle,
      log,
    });
  }
  save();
  log(`\n${formatTables(results)}`);
  log(`\nresults: ${options.out}`);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    // Agent and viewer processes end with their IPC channel; the servers need telling.
    killServers();
    process.exit(130);
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
