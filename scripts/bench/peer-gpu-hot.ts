/**
 * The peer comparison (issue 52): gpu-hot (github.com/psalias2006/gpu-hot, a
 * Python FastAPI GPU monitor that sends every GPU's whole reading to each
 * browser over a WebSocket on every poll) measured the way
 * `npm run bench` and `npm run bench -- --latency` measure gpudesk: its
 * server's CPU and RSS from /proc, the bytes one viewer receives, how old a
 * reading is when the viewer gets it, and how long a change in nvidia-smi's
 * output takes to reach the viewer. Prints figures; not a test.
 *
 *   npx tsx scripts/bench/peer-gpu-hot.ts --gpu-hot DIR [--gpus 8,256,1000] [--duration 30] [--changes 10] [--port 5750]
 *
 * DIR is a checkout of gpu-hot (nothing of it is committed here: fetch it
 * yourself). It runs under Debian's Python with Debian's packages
 * (python3-fastapi, python3-uvicorn, python3-websockets, python3-psutil,
 * python3-aiohttp; PyPI is not needed) in its nvidia-smi mode
 * (`NVIDIA_SMI=true`, polling every `--interval-ms`), reading the same
 * fake nvidia-smi as gpudesk's latency bench (scripts/fake-nvidia-smi.mjs
 * replaying host/collector/fixtures/h200-driver-580, its GPU row repeated
 * as N GPUs on one host). NVML, which it still opens at start and asks for
 * the process list, is a stub written here (no GPU, no processes).
 *
 * Each setting: the server, one WebSocket viewer, a warm-up, a window of
 * `--duration` s (CPU, RSS, bytes, freshness: the viewer's arrival against
 * the last nvidia-smi tick before it), then `--changes` changes of
 * `utilization.gpu` at random moments, each timed to the first message
 * that shows it. Results: bench-results/<time>-peer-gpu-hot.json.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";
import { argsOrExit, exitWithUsage, flag } from "./args";
import { recordingWithGpus, utilizationSetter } from "./latency";
import { cpuSeconds, rssMiB } from "./processes";
import { repoRoot, sleep, stopProcess } from "./scenario";

const USAGE =
  "usage: npx tsx scripts/bench/peer-gpu-hot.ts --gpu-hot DIR [--gpus 8,256,1000] [--duration 30] [--warmup 10] [--changes 10] [--interval-ms 1000] [--port 5750]";
const { flags } = argsOrExit(
  process.argv.slice(2),
  {
    gpuHot: flag.text(null),
    gpus: flag.wholes([8, 256, 1000], { min: 1, max: 10_000 }),
    duration: flag.whole(30, { min: 5, max: 600 }),
    warmup: flag.whole(10, { min: 0, max: 300 }),
    changes: flag.whole(10, { min: 0, max: 100 }),
    intervalMs: flag.whole(1000, { min: 100, max: 10_000 }),
    port: flag.whole(5750, { min: 1024, max: 65_535 }),
  },
  USAGE,
);
if (!flags.gpuHot) exitWithUsage("--gpu-hot DIR is required (a checkout of psalias2006/gpu-hot)", USAGE);
const gpuHot = path.resolve(flags.gpuHot);
const PYTHON = "/usr/bin/python3";

/** NVML as gpu-hot's nvidia-smi mode still asks it: a count, UUIDs, no processes; anything else is "not supported". */
const FAKE_NVML = `import os
class NVMLError(Exception):
    pass
_COUNT = int(os.environ["FAKE_NVML_GPUS"])
def nvmlInit(): pass
def nvmlShutdown(): pass
def nvmlSystemGetDriverVersion(): return "580.95.05"
def nvmlDeviceGetCount(): return _COUNT
def nvmlDeviceGetHandleByIndex(index): return index
def nvmlDeviceGetUUID(handle): return "GPU-%08d-0000-0000-0000-000000000000" % handle
def nvmlDeviceGetComputeRunningProcesses(handle): return []
def nvmlDeviceGetGraphicsRunningProcesses(handle): return []
def __getattr__(name):
    if name.startswith("NVML_"):
        return 0
    def unsupported(*args, **kwargs):
        raise NVMLError(name)
    return unsupported
`;

const percentile = (values: number[], p: number): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

/** CPU seconds of the process's children that it waited for (utime + stime of the reaped nvidia-smi runs). */
function childCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}

function checkPython(): void {
  const probe = spawnSync(PYTHON, ["-c", "import fastapi, uvicorn, websockets, psutil, aiohttp"], { encoding: "utf8" });
  if (probe.status !== 0) {
    console.error(`gpu-hot needs Debian's python3-fastapi python3-uvicorn python3-websockets python3-psutil python3-aiohttp:\n${probe.stderr}`);
    process.exit(2);
  }
}

interface Message {
  at: number;
  bytes: number;
  value: number | null;
}

interface PeerResult {
  gpus: number;
  windowS: number;
  serverCores: number;
  nvidiaSmiCores: number;
  rssMaxMiB: number;
  messagesPerS: number;
  bytesPerViewerPerS: number;
  bytesPerGpuPerS: number;
  freshnessMs: { p50: number | null; p99: number | null };
  changes: number;
  seen: number;
  changeToViewerMs: { p50: number | null; p90: number | null; max: number | null };
  loadAverage: { before: number[]; after: number[] };
}

async function runSetting(gpus: number): Promise<PeerResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `gpu-hot-${gpus}-`));
  let server: ChildProcess | null = null;
  let viewer: WebSocket | null = null;
  try {
    const recording = path.join(dir, "recording");
    recordingWithGpus(recording, gpus);
    const stub = path.join(dir, "nvml");
    mkdirSync(stub);
    writeFileSync(path.join(stub, "pynvml.py"), FAKE_NVML);
    const bin = path.join(dir, "bin");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "nvidia-smi"), `#!/bin/sh\nexec "${process.execPath}" "${path.join(repoRoot, "scripts", "fake-nvidia-smi.mjs")}" "$@"\n`);
    chmodSync(path.join(bin, "nvidia-smi"), 0o755);
    const setFile = path.join(dir, "set.txt");
    const tickLog = path.join(dir, "ticks.log");
    const setValue = utilizationSetter(setFile);
    setValue(1);

    const logFile = path.join(dir, "server.log");
    server = spawn(PYTHON, ["-m", "uvicorn", "app:app", "--host", "127.0.0.1", "--port", String(flags.port), "--log-level", "warning"], {
      cwd: gpuHot,
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH}`,
        PYTHONPATH: stub,
        NVIDIA_SMI: "true",
        NVIDIA_SMI_INTERVAL: String(flags.intervalMs / 1000),
        FAKE_NVML_GPUS: String(gpus),
        FAKE_NVIDIA_SMI_DIR: recording,
        FAKE_NVIDIA_SMI_SET: setFile,
        FAKE_NVIDIA_SMI_TICK_LOG: tickLog,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
    };
    server.stdout?.on("data", keep);
    server.stderr?.on("data", keep);
    const url = `http://127.0.0.1:${flags.port}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`gpu-hot exited with ${server.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`gpu-hot did not answer on ${url}:\n${output}`);
      try {
        if ((await fetch(`${url}/`)).ok) break;
      } catch {
        // not listening yet
      }
      await sleep(250);
    }

    const messages: Message[] = [];
    viewer = new WebSocket(`ws://127.0.0.1:${flags.port}/socket.io/`);
    viewer.on("message", (data: Buffer) => {
      const at = Date.now();
      let value: number | null = null;
      try {
        const parsed = JSON.parse(data.toString()) as { gpus?: Record<string, { utilization?: number }> };
        value = parsed.gpus?.["0"]?.utilization ?? null;
      } catch {
        // not a reading
      }
      messages.push({ at, bytes: data.length, value });
    });
    await new Promise<void>((resolve, reject) => {
      viewer!.once("open", () => resolve());
      viewer!.once("error", reject);
    });
    const first = Date.now() + 60_000;
    while (!messages.some((message) => message.value !== null) && Date.now() < first) await sleep(100);
    if (!messages.some((message) => message.value !== null)) throw new Error(`the viewer saw no reading of GPU 0:\n${output}`);
    await sleep(flags.warmup * 1000);

    const pid = server.pid!;
    const loadBefore = os.loadavg();
    const windowStart = Date.now();
    const cpuStart = cpuSeconds(pid);
    const childStart = childCpuSeconds(pid);
    let rssMax = 0;
    while (Date.now() - windowStart < flags.duration * 1000) {
      rssMax = Math.max(rssMax, rssMiB(pid));
      await sleep(1000);
    }
    const windowEnd = Date.now();
    const windowS = (windowEnd - windowStart) / 1000;
    const serverCores = (cpuSeconds(pid) - cpuStart) / windowS;
    const nvidiaSmiCores = (childCpuSeconds(pid) - childStart) / windowS;
    const inWindow = messages.filter((message) => message.at >= windowStart && message.at < windowEnd);
    const bytes = inWindow.reduce((sum, message) => sum + message.bytes, 0);
    const ticks = readFileSync(tickLog, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => Number(line.slice(0, line.indexOf(" "))));
    const freshness = inWindow.flatMap((message) => {
      let last: number | null = null;
      for (const tick of ticks) if (tick <= message.at) last = tick;
      return last === null ? [] : [message.at - last];
    });

    const delays: number[] = [];
    for (let k = 0; k < flags.changes; k++) {
      await sleep(flags.intervalMs * (1 + Math.random()));
      const value = 10 + 3 * k;
      const changeAt = Date.now();
      setValue(value);
      const until = changeAt + 6_000 + 2 * flags.intervalMs;
      let seenAt: number | null = null;
      while (seenAt === null && Date.now() < until) {
        seenAt = messages.find((message) => message.at >= changeAt && message.value === value)?.at ?? null;
        if (seenAt === null) await sleep(10);
      }
      if (seenAt !== null) delays.push(seenAt - changeAt);
    }
    rssMax = Math.max(rssMax, rssMiB(pid));
    const loadAfter = os.loadavg();
    return {
      gpus,
      windowS,
      serverCores,
      nvidiaSmiCores,
      rssMaxMiB: rssMax,
      messagesPerS: inWindow.length / windowS,
      bytesPerViewerPerS: bytes / windowS,
      bytesPerGpuPerS: bytes / windowS / gpus,
      freshnessMs: { p50: percentile(freshness, 50), p99: percentile(freshness, 99) },
      changes: flags.changes,
      seen: delays.length,
      changeToViewerMs: { p50: percentile(delays, 50), p90: percentile(delays, 90), max: delays.length > 0 ? Math.max(...delays) : null },
      loadAverage: { before: loadBefore, after: loadAfter },
    };
  } finally {
    viewer?.close();
    if (server) await stopProcess(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  checkPython();
  const commit = spawnSync("git", ["-C", gpuHot, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).stdout.trim() || "unknown";
  console.log(`gpu-hot ${commit} (${gpuHot}), nvidia-smi mode every ${flags.intervalMs} ms, one viewer; ${flags.duration} s window after ${flags.warmup} s warm-up, ${flags.changes} changes`);
  const results: PeerResult[] = [];
  for (const gpus of flags.gpus) {
    const result = await runSetting(gpus);
    results.push(result);
    const f = (value: number | null, digits = 0) => (value === null ? "–" : value.toFixed(digits));
    console.log(
      `  ${gpus} GPUs: server ${f(result.serverCores, 3)} cores (+ nvidia-smi runs ${f(result.nvidiaSmiCores, 3)}), RSS max ${f(result.rssMaxMiB, 1)} MiB, ` +
        `${f(result.messagesPerS, 2)} msg/s, ${f(result.bytesPerViewerPerS / 1024, 1)} KiB/s per viewer (${f(result.bytesPerGpuPerS, 1)} B/GPU·s), ` +
        `freshness p50/p99 ${f(result.freshnessMs.p50)}/${f(result.freshnessMs.p99)} ms, change → viewer p50/p90/max ${f(result.changeToViewerMs.p50)}/${f(result.changeToViewerMs.p90)}/${f(result.changeToViewerMs.max)} ms ` +
        `(${result.seen}/${result.changes} seen), load ${result.loadAverage.before[0]!.toFixed(1)} → ${result.loadAverage.after[0]!.toFixed(1)}`,
    );
  }
  const out = path.join(repoRoot, "bench-results");
  mkdirSync(out, { recursive: true });
  const file = path.join(out, `${new Date().toISOString().slice(0, 16).replace(/:/g, "-")}-peer-gpu-hot.json`);
  writeFileSync(file, `${JSON.stringify({ gpuHot: commit, intervalMs: flags.intervalMs, duration: flags.duration, results }, null, 2)}\n`);
  console.log(`results: ${path.relative(repoRoot, file)}`);
}

await main();
