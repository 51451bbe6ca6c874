/**
 * What the agent costs a GPU host: the host bundle's agent (dist/gpudesk.mjs,
 * `npm run build:host`) on an 8-GPU host at its interval, against the
 * recording-driven fake nvidia-smi (scripts/fake-nvidia-smi.mjs; or a real
 * one with --nvidia-smi), pushing to a stand-in server that acknowledges
 * every batch as gpudesk does. Over the window it reads from /proc the
 * agent's CPU (utime + stime) and RSS, and separately what its nvidia-smi
 * children used (those alive, and those it reaped: cutime + cstime), since
 * that is nvidia-smi's cost, not the agent's. With the fake, the children are
 * node processes replaying a recording: their figure stands in for
 * nvidia-smi's and is not it (the real one: fixtures/h200-driver-580/polling-cost.txt).
 *
 *   npx tsx scripts/bench/agent-cost.ts [--intervals 1s,500ms] [--seconds 60] [--warmup 10] [--gpus 8]
 *       [--nvidia-smi PATH] [--port 3650] [--node-options "--max-semi-space-size=1"] [--node-args "--cpu-prof"] [--out bench-results/<date>-agent-cost.json]
 *
 * `--node-options` runs the agent under those Node flags (NODE_OPTIONS), as a
 * service unit could start it; `--node-args` puts flags on node's own command
 * line, for those NODE_OPTIONS refuses (`--cpu-prof --cpu-prof-dir=DIR`);
 * `--bundle` measures another build of the agent (an earlier commit's).
 *
 * The 8-GPU recording is made from the real H200 capture
 * (host/collector/fixtures/h200-driver-580): its GPU copied eight times
 * with its own index, UUID and PCI bus id, and its CUDA process once per GPU,
 * each with the pid of a real process started here (a `sleep`), so that the
 * agent reads /proc for eight live processes as on a busy host.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import os from "node:os";
import path from "node:path";
import { Server } from "socket.io";
import { parseDuration } from "@/host/agent/agent-options";
import { argsOrExit, flag } from "./args";
import { rssMiB } from "./processes";
import { repoRoot } from "./scenario";

const USAGE = `usage: npx tsx scripts/bench/agent-cost.ts [--intervals 1s,500ms] [--seconds 60] [--warmup 10] [--gpus 8]
  [--nvidia-smi PATH] [--port 3650] [--node-options FLAGS] [--node-args FLAGS] [--bundle dist/gpudesk.mjs] [--out bench-results/<date>-agent-cost.json]`;

const { flags } = argsOrExit(
  process.argv.slice(2),
  {
    intervals: flag.text("1s,500ms"),
    seconds: flag.whole(60),
    warmup: flag.whole(10, { min: 0 }),
    gpus: flag.whole(8, { min: 1, max: 64 }),
    nvidiaSmi: flag.text(null),
    port: flag.whole(3650, { min: 1024, max: 65535 }),
    nodeOptions: flag.text(""),
    nodeArgs: flag.text(""),
    bundle: flag.text(null),
    out: flag.text(null),
  },
  USAGE,
);

const TICKS_PER_SECOND = 100;
const FIXTURE = path.join(repoRoot, "host", "collector", "fixtures", "h200-driver-580");
const BUNDLE = flags.bundle ? path.resolve(flags.bundle) : path.join(repoRoot, "dist", "gpudesk.mjs");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** utime + stime and cutime + cstime of a process, in ticks; null when it is gone. */
function times(pid: number): { own: number; reaped: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { own: Number(fields[11]) + Number(fields[12]), reaped: Number(fields[13]) + Number(fields[14]) };
  } catch {
    return null;
  }
}

/** Every descendant of a process, from each process's parent in /proc. */
function descendants(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const wanted = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, parent] of parentOf) {
      if (wanted.has(parent) && !wanted.has(pid)) {
        wanted.add(pid);
        found.push(pid);
        grew = true;
      }
    }
  }
  return found;
}

/** The 8-GPU recording, made from the real one-GPU capture, with `pids` as the GPUs' compute processes. */
function makeRecording(gpus: number, pids: number[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-agent-cost-"));
  const uuidOf = (i: number, uuid: string) => `${uuid.slice(0, -2)}${i.toString(16).padStart(2, "0")}`;
  const busOf = (i: number) => `00000000:${(0x18 + i).toString(16).toUpperCase().padStart(2, "0")}:00.0`;
  const csv = readFileSync(path.join(FIXTURE, "query-gpu__load.csv"), "utf8").split("\n");
  const row = csv.find((line) => /^0, GPU-/.test(line))!;
  const [, uuid, , bus] = row.split(", ");
  const rows = Array.from({ length: gpus }, (_, i) => [String(i), uuidOf(i, uuid!), ...row.split(", ").slice(2)].join(", ").replace(bus!, busOf(i)));
  writeFileSync(path.join(dir, "query-gpu__load.csv"), csv.flatMap((line) => (line === row ? rows : [line])).join("\n"));
  // One compute process per GPU, each a real process here, so that the agent reads a live /proc entry
  // for each as it would on a busy host (the recording's own pid is long gone).
  const apps = readFileSync(path.join(FIXTURE, "query-compute-apps__load.csv"), "utf8").split("\n");
  const app = apps.find((line) => line.startsWith(uuid!))!;
  const appRows = pids.map((pid, i) => app.replace(uuid!, uuidOf(i, uuid!)).replace(/, \d+, /, `, ${pid}, `));
  writeFileSync(path.join(dir, "query-compute-apps__load.csv"), apps.flatMap((line) => (line === app ? appRows : [line])).join("\n"));
  const list = readFileSync(path.join(FIXTURE, "list-L.txt"), "utf8").split("\n");
  const listed = list.find((line) => line.startsWith("GPU 0:"))!;
  writeFileSync(
    path.join(dir, "list-L.txt"),
    list.flatMap((line) => (line === listed ? Array.from({ length: gpus }, (_, i) => listed.replace("GPU 0:", `GPU ${i}:`).replace(uuid!, uuidOf(i, uuid!))) : [line])).join("\n"),
  );
  const xml = readFileSync(path.join(FIXTURE, "query-xml.xml"), "utf8");
  const start = xml.indexOf("\t<gpu id=");
  const end = xml.indexOf("\t</gpu>", start) + "\t</gpu>\n".length;
  const gpuXml = xml.slice(start, end);
  const copies = Array.from({ length: gpus }, (_, i) =>
    gpuXml
      .replaceAll(uuid!, uuidOf(i, uuid!))
      .replaceAll(bus!, busOf(i))
      .replaceAll(bus!.slice(4), busOf(i).slice(4))
      .replace(/<minor_number>\d+<\/minor_number>/, `<minor_number>${i}</minor_number>`),
  );
  writeFileSync(path.join(dir, "query-xml.xml"), xml.slice(0, start).replace(/<attached_gpus>\d+</, `<attached_gpus>${gpus}<`) + copies.join("") + xml.slice(end));
  if (existsSync(path.join(FIXTURE, "version.txt"))) writeFileSync(path.join(dir, "version.txt"), readFileSync(path.join(FIXTURE, "version.txt")));
  return dir;
}

/** The stand-in for gpudesk's /agent namespace: accepts the hello and acknowledges each batch, counting readings. */
async function startStandIn(port: number) {
  const http = createServer();
  const io = new Server(http);
  const received: { at: number; gpus: number }[] = [];
  io.of("/agent").on("connection", (socket) => {
    socket.on("agent:hello", (hello: { hostName: string }, reply: (answer: unknown) => void) => reply({ ok: true, hostId: "agent-cost-host", hostName: hello.hostName }));
    socket.on("agent:samples", (batch: { snapshots: { gpus?: unknown[] }[] }, reply: (answer: unknown) => void) => {
      for (const snapshot of batch.snapshots) received.push({ at: Date.now(), gpus: snapshot.gpus?.length ?? 0 });
      reply({ accepted: batch.snapshots.length, rejected: [] });
    });
  });
  await new Promise<void>((resolve) => http.listen(port, "127.0.0.1", resolve));
  return { received, close: () => new Promise<void>((resolve) => io.close(() => resolve())) };
}

interface IntervalResult {
  interval: string;
  intervalMs: number;
  windowS: number;
  readingsPerSecond: number;
  gpusPerReading: number;
  agent: { cpuPctOfOneCore: number; rssMiB: { mean: number; max: number } };
  /** The nvidia-smi children (here: the fake's node processes), alive and reaped. */
  nvidiaSmi: { cpuPctOfOneCore: number; rssMiB: number; processes: number };
  loadAverage: { before: number[]; after: number[] };
}

async function measure(interval: string, recording: string): Promise<IntervalResult> {
  const intervalMs = parseDuration(interval);
  const standIn = await startStandIn(flags.port);
  const nvidiaSmi = flags.nvidiaSmi ?? path.join(repoRoot, "scripts", "fake-nvidia-smi.mjs");
  const agent: ChildProcess = spawn(
    process.execPath,
    [...flags.nodeArgs.split(" ").filter(Boolean), BUNDLE, "agent", "--server", `http://127.0.0.1:${flags.port}`, "--token", "agent-cost", "--nvidia-smi", nvidiaSmi, "--interval", interval, "--host-name", "agent-cost-8gpu"],
    {
      cwd: os.tmpdir(),
      env: { ...process.env, NODE_OPTIONS: flags.nodeOptions, FAKE_NVIDIA_SMI_DIR: recording, FAKE_NVIDIA_SMI_VARY: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  agent.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  try {
    await sleep(flags.warmup * 1000);
    if (agent.exitCode !== null) throw new Error(`the agent exited with ${agent.exitCode}:\n${stderr}`);
    const pid = agent.pid!;
    const loadBefore = os.loadavg();
    const childrenAtStart = new Map(descendants(pid).map((child) => [child, times(child)?.own ?? 0]));
    const agentAtStart = times(pid)!;
    const readingsAtStart = standIn.received.length;
    const startedAt = performance.now();
    const rss: number[] = [];
    const childRss: number[] = [];
    while (performance.now() - startedAt < flags.seconds * 1000) {
      rss.push(rssMiB(pid));
      childRss.push(descendants(pid).reduce((sum, child) => sum + (rssMiB(child) || 0), 0));
      await sleep(1000);
    }
    const seconds = (performance.now() - startedAt) / 1000;
    const agentAtEnd = times(pid)!;
    const children = descendants(pid);
    let childTicks = agentAtEnd.reaped - agentAtStart.reaped;
    for (const child of children) childTicks += (times(child)?.own ?? 0) - (childrenAtStart.get(child) ?? 0);
    const readings = standIn.received.slice(readingsAtStart);
    const pct = (ticks: number) => (ticks / TICKS_PER_SECOND / seconds) * 100;
    return {
      interval,
      intervalMs,
      windowS: Math.round(seconds * 10) / 10,
      readingsPerSecond: readings.length / seconds,
      gpusPerReading: readings.length === 0 ? 0 : readings.reduce((sum, r) => sum + r.gpus, 0) / readings.length,
      agent: {
        cpuPctOfOneCore: pct(agentAtEnd.own - agentAtStart.own),
        rssMiB: { mean: rss.reduce((a, b) => a + b, 0) / rss.length, max: Math.max(...rss) },
      },
      nvidiaSmi: { cpuPctOfOneCore: pct(childTicks), rssMiB: Math.max(...childRss), processes: children.length },
      loadAverage: { before: loadBefore, after: os.loadavg() },
    };
  } finally {
    agent.kill("SIGTERM");
    await new Promise((resolve) => (agent.exitCode !== null ? resolve(null) : agent.once("exit", resolve)));
    await standIn.close();
  }
}

async function main(): Promise<void> {
  if (!existsSync(BUNDLE)) {
    console.error(`${path.relative(repoRoot, BUNDLE)} is missing: run npm run build:host first`);
    process.exit(2);
  }
  // Stand-ins for the training processes, one per GPU: long sleeps, killed at the end.
  const workers = Array.from({ length: flags.gpus }, () => spawn("sleep", ["86400"], { stdio: "ignore" }));
  const recording = makeRecording(
    flags.gpus,
    workers.map((worker) => worker.pid!),
  );
  const stamp = new Date().toISOString().replace(/:\d\d\.\d+Z$/, "").replace(":", "-");
  const out = flags.out ?? path.join("bench-results", `${stamp}-agent-cost.json`);
  const results: IntervalResult[] = [];
  try {
    for (const interval of flags.intervals.split(",")) {
      console.log(`${flags.gpus} GPUs, --interval ${interval}: warming up ${flags.warmup} s, measuring ${flags.seconds} s`);
      const result = await measure(interval, recording);
      results.push(result);
      console.log(
        `  agent ${result.agent.cpuPctOfOneCore.toFixed(2)} % of a core, RSS ${result.agent.rssMiB.mean.toFixed(1)} MiB (max ${result.agent.rssMiB.max.toFixed(1)}); ` +
          `nvidia-smi children ${result.nvidiaSmi.cpuPctOfOneCore.toFixed(2)} %, ${result.nvidiaSmi.rssMiB.toFixed(0)} MiB in ${result.nvidiaSmi.processes}; ` +
          `${result.readingsPerSecond.toFixed(2)} readings/s of ${result.gpusPerReading.toFixed(0)} GPUs; load ${result.loadAverage.before.map((l) => l.toFixed(1)).join(" ")}`,
      );
    }
  } finally {
    rmSync(recording, { recursive: true, force: true });
    for (const worker of workers) worker.kill("SIGKILL");
  }
  const machine = { cpuModel: /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown", cores: os.cpus().length, node: process.version };
  mkdirSync(path.dirname(path.resolve(repoRoot, out)), { recursive: true });
  writeFileSync(path.resolve(repoRoot, out), `${JSON.stringify({ startedAt: new Date().toISOString(), machine, nvidiaSmi: flags.nvidiaSmi ?? "scripts/fake-nvidia-smi.mjs (recording-driven)", nodeOptions: flags.nodeOptions, gpus: flags.gpus, results }, null, 2)}\n`);
  console.log(`results: ${out}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
