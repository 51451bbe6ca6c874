/**
 * `tsx scripts/bench/server-memory.ts`: where the memory of a small gpudesk server goes.
 * Starts `gpudesk serve` as `npm start` does (prebuilt server, fresh SQLite database, the
 * embedded 8-GPU simulated fleet), serves one page, waits, then reads RSS from /proc and
 * asks the memory probe inside (scripts/bench/memory-probe.mjs) for the V8 heap, external
 * memory, code and the files loaded by package. Runs several times and prints the median.
 * `--next-alone` does the same for Next.js alone serving this app's build (the baseline).
 * With `--gpus 200,2000` it runs a simulated fleet of each size (issue 42's memory per GPU):
 * RSS of the server's process tree every `--every` seconds while it settles, what V8 holds
 * before and after a full collection, and each figure's slope per GPU between the sizes.
 *
 *   tsx scripts/bench/server-memory.ts [--runs 3] [--settle 30] [--port 3516] [--page /login]
 *     [--next-alone] [--modules] [--heap FILE] [--sampling FILE] [--gpus N[,N…]] [--every 30] [--node-args "…"] [--json FILE]
 *
 * `--sampling FILE` (one fleet size) samples what the server allocates that outlives the
 * young generation, from start to the reading, and prints where it was allocated: what
 * fills the old space between two full collections.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { argsOrExit, flag } from "./args";
import { cpuSeconds, rssPartsMiB, treeRssMiB } from "./processes";
import { repoRoot } from "./scenario";

interface Options {
  runs: number;
  settleS: number;
  port: number;
  page: string | null;
  nextAlone: boolean;
  modules: boolean;
  heapFile: string | null;
  samplingFile: string | null;
  gpus: (number | null)[];
  everyS: number;
  nodeArgs: string[];
  json: string | null;
}

interface ProbeReport {
  memoryUsage: NodeJS.MemoryUsage;
  heapStatistics: { malloced_memory: number; total_heap_size: number };
  heapSpaces: Record<string, number>;
  /** Each space's committed size (what it holds of RSS), beside heapSpaces' used size. */
  heapSpaceSizes: Record<string, number>;
  afterGc: { memoryUsage: NodeJS.MemoryUsage } | null;
  heapCode: { code_and_metadata_size: number; bytecode_and_metadata_size: number; external_script_source_size: number };
  modules: { files: number; esmCounted: boolean; byPackage: Record<string, { files: number; bytes: number }> };
}

interface RunResult {
  gpus: number | null;
  rssMiB: number;
  /** Seconds after ready and the process tree's RSS then, while it settles. */
  rssSeries: [number, number][];
  /** The server's CPU over the last half of the settle, in cores (its embedded agents' included). */
  cpuCores: number;
  rss: { anon: number; file: number; shmem: number };
  probe: ProbeReport;
}

const USAGE = `usage: tsx scripts/bench/server-memory.ts [--runs 3] [--settle 30] [--port 3516] [--page /login]
  [--next-alone] [--modules] [--heap FILE] [--sampling FILE] [--gpus N[,N…]] [--every 30] [--node-args "…"] [--json FILE]`;

function parseOptions(argv: string[]): Options {
  const { flags } = argsOrExit(
    argv,
    {
      runs: flag.whole(3),
      settle: flag.number(30, { min: 0 }),
      port: flag.whole(3516, { min: 1, max: 65_535 }),
      page: flag.text(null),
      nextAlone: flag.boolean(),
      modules: flag.boolean(),
      heap: flag.text(null),
      sampling: flag.text(null),
      gpus: flag.wholes(null),
      every: flag.number(30, { min: 1 }),
      nodeArgs: flag.text(""),
      json: flag.text(null),
    },
    USAGE,
  );
  const { settle: settleS, heap, sampling, gpus, every: everyS, nodeArgs, ...rest } = flags;
  return {
    ...rest,
    settleS,
    everyS,
    gpus: gpus ?? [null],
    nodeArgs: nodeArgs.split(/\s+/).filter(Boolean),
    heapFile: heap === null ? null : path.resolve(heap),
    samplingFile: sampling === null ? null : path.resolve(sampling),
  };
}

/** The heap snapshot's file for one fleet size: `--heap FILE` itself, or with the size before its extension when there are several. */
function heapFileFor(options: Options, gpus: number | null): string {
  if (!options.heapFile || options.gpus.length === 1) return options.heapFile ?? "";
  const { dir, name, ext } = path.parse(options.heapFile);
  return path.join(dir, `${name}-${gpus ?? "default"}${ext}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MiB = 2 ** 20;

async function waitFor(url: string, child: { exitCode: number | null }, logFile: string): Promise<void> {
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${readFileSync(logFile, "utf8").slice(-3000)}`);
    try {
      await fetch(url);
      return;
    } catch {
      await sleep(300);
    }
  }
  throw new Error(`${url} did not answer within 5 minutes; see ${logFile}`);
}

async function measureOnce(options: Options, run: number, gpus: number | null): Promise<RunResult> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-memory-"));
  const probeFile = path.join(dataDir, "probe.json");
  const logFile = path.join(dataDir, "server.log");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GPUDESK_DATA_DIR: dataDir,
    PORT: String(options.port),
    HOST: "127.0.0.1",
    GPUDESK_LOCAL_AGENT: "simulated",
    GPUDESK_MEMORY_PROBE_FILE: probeFile,
    GPUDESK_MEMORY_PROBE_GC: "1",
    ...(options.modules ? { GPUDESK_MEMORY_PROBE_MODULES: "1" } : {}),
    ...(options.heapFile && run === 0 ? { GPUDESK_MEMORY_PROBE_HEAP: heapFileFor(options, gpus) } : {}),
    ...(options.samplingFile && run === 0 ? { GPUDESK_MEMORY_PROBE_SAMPLING: options.samplingFile } : {}),
    ...(gpus ? { GPUDESK_SIM_GPUS: String(gpus) } : {}),
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const entry = options.nextAlone ? path.join(repoRoot, "scripts", "bench", "next-alone.mjs") : path.join(repoRoot, "bin", "gpudesk.js");
  const probe = path.join(repoRoot, "scripts", "bench", "memory-probe.mjs");
  const child = spawn(process.execPath, [...options.nodeArgs, "--import", probe, entry, ...(options.nextAlone ? [] : ["serve"])], {
    cwd: repoRoot,
    env,
    stdio: ["ignore", openSync(logFile, "a"), openSync(logFile, "a")],
  });
  try {
    const base = `http://127.0.0.1:${options.port}`;
    await waitFor(options.nextAlone ? `${base}/` : `${base}/api/health`, child, logFile);
    if (!options.nextAlone) {
      while (!readFileSync(logFile, "utf8").includes("gpudesk ready")) await sleep(300);
    }
    const readyAt = Date.now();
    const page = options.page ?? (options.nextAlone ? "/no-such-page" : "/login");
    const response = await fetch(`${base}${page}`);
    await response.text();
    const rssSeries: [number, number][] = [];
    let cpuFrom: { seconds: number; at: number } | null = null;
    for (let at = options.everyS; at < options.settleS; at += options.everyS) {
      await sleep(Math.max(0, readyAt + at * 1000 - Date.now()));
      rssSeries.push([at, treeRssMiB(child.pid!)]);
      if (cpuFrom === null && at >= options.settleS / 2) cpuFrom = { seconds: cpuSeconds(child.pid!), at: Date.now() };
    }
    await sleep(Math.max(0, readyAt + options.settleS * 1000 - Date.now()));
    const cpuCores = cpuFrom ? (cpuSeconds(child.pid!) - cpuFrom.seconds) / ((Date.now() - cpuFrom.at) / 1000) : Number.NaN;
    // RSS before the probe's full collection, which may hand pages back.
    const rssNow = treeRssMiB(child.pid!);
    const rss = rssPartsMiB(child.pid!);
    rssSeries.push([options.settleS, rssNow]);
    rmSync(probeFile, { force: true });
    child.kill("SIGUSR2");
    for (let i = 0; i < 600 && !existsSync(probeFile); i++) await sleep(100);
    const result = { gpus, rssMiB: rssNow, rssSeries, cpuCores, rss, probe: JSON.parse(readFileSync(probeFile, "utf8")) as ProbeReport };
    const series = rssSeries.map(([at, mib]) => `${at} s ${mib.toFixed(0)}`).join(", ");
    process.stderr.write(`run ${run + 1}${gpus ? `, ${gpus} GPUs` : ""}: ${page} answered ${response.status}; RSS ${result.rssMiB.toFixed(0)} MiB (${series}); CPU ${cpuCores.toFixed(3)} cores over the last half; load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}\n`);
    return result;
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A heap snapshot's self sizes by node type, and the largest groups by type and name (DevTools' "Summary", flat). */
function summarizeHeapSnapshot(file: string): string {
  const snapshot = JSON.parse(readFileSync(file, "utf8")) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((field) => fields.indexOf(field));
  const byType = new Map<string, number>();
  const byName = new Map<string, { bytes: number; count: number }>();
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const type = types[snapshot.nodes[i + typeAt!]!]!;
    const size = snapshot.nodes[i + sizeAt!]!;
    byType.set(type, (byType.get(type) ?? 0) + size);
    const name = type === "string" || type === "concatenated string" || type === "sliced string" ? "(strings)" : snapshot.strings[snapshot.nodes[i + nameAt!]!]!.slice(0, 60);
    const key = `${type}: ${name}`;
    const entry = byName.get(key) ?? { bytes: 0, count: 0 };
    entry.bytes += size;
    entry.count += 1;
    byName.set(key, entry);
  }
  const lines = ["| node type | MiB (self) |", "|---|---:|"];
  for (const [type, bytes] of [...byType].sort((a, b) => b[1] - a[1])) if (bytes > MiB / 10) lines.push(`| ${type} | ${(bytes / MiB).toFixed(1)} |`);
  lines.push("", "| type: name | count | MiB (self) |", "|---|---:|---:|");
  for (const [key, { bytes, count }] of [...byName].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 30)) {
    lines.push(`| ${key.replaceAll("|", "\\|")} | ${count} | ${(bytes / MiB).toFixed(2)} |`);
  }
  return lines.join("\n");
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** A sampling heap profile's bytes by where they were allocated: the function, its file and line, and two callers. */
function summarizeSampling(file: string): string {
  const head = (JSON.parse(readFileSync(file, "utf8")) as { head: SamplingNode }).head;
  const bySite = new Map<string, number>();
  let total = 0;
  const frame = (node: SamplingNode) =>
    `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.replace(/^.*\/(node_modules|dist|\.next)\//, "$1/")}:${node.callFrame.lineNumber + 1}`;
  const walk = (node: SamplingNode, callers: string[]) => {
    const here = frame(node);
    if (node.selfSize > 0) {
      const key = [here, ...callers.slice(-2).reverse()].join(" ← ");
      bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) walk(child, [...callers, here]);
  };
  walk(head, []);
  const lines = [`${(total / MiB).toFixed(1)} MiB sampled`, "", "| allocated at ← caller ← its caller | MiB | share |", "|---|---:|---:|"];
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
    lines.push(`| ${site.replaceAll("|", "\\|")} | ${(bytes / MiB).toFixed(1)} | ${((100 * bytes) / total).toFixed(0)} % |`);
  }
  return lines.join("\n");
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function report(results: RunResult[]): string {
  const m = (pick: (result: RunResult) => number) => median(results.map(pick)).toFixed(1);
  const lines = [
    `| what | MiB (median of ${results.length}) |`,
    "|---|---:|",
    `| RSS | ${m((r) => r.rssMiB)} (runs: ${results.map((r) => r.rssMiB.toFixed(0)).join(", ")}) |`,
    `| RSS anonymous / file-backed | ${m((r) => r.rss.anon)} / ${m((r) => r.rss.file)} |`,
    `| V8 heap total / used | ${m((r) => r.probe.memoryUsage.heapTotal / MiB)} / ${m((r) => r.probe.memoryUsage.heapUsed / MiB)} |`,
    `| external (of which array buffers) | ${m((r) => r.probe.memoryUsage.external / MiB)} (${m((r) => r.probe.memoryUsage.arrayBuffers / MiB)}) |`,
    `| code and metadata / bytecode / script sources | ${m((r) => r.probe.heapCode.code_and_metadata_size / MiB)} / ${m((r) => r.probe.heapCode.bytecode_and_metadata_size / MiB)} / ${m((r) => r.probe.heapCode.external_script_source_size / MiB)} |`,
  ];
  for (const [space, bytes] of Object.entries(results[0]!.probe.heapSpaces)) {
    if (bytes > MiB) lines.push(`| heap space ${space} (first run) | ${(bytes / MiB).toFixed(1)} |`);
  }
  const modules = results[0]!.probe.modules;
  lines.push("", `Files loaded (first run): ${modules.files}${modules.esmCounted ? "" : " (CommonJS only; --modules counts ES modules too)"}`, "", "| package | files | KiB on disk |", "|---|---:|---:|");
  const packages = Object.entries(modules.byPackage).sort((a, b) => b[1].bytes - a[1].bytes);
  for (const [name, { files, bytes }] of packages.slice(0, 25)) lines.push(`| ${name} | ${files} | ${(bytes / 1024).toFixed(0)} |`);
  return lines.join("\n");
}

/** Each size's medians side by side, and their slope per GPU between the smallest and the largest fleet. */
function perGpuReport(bySize: RunResult[][], options: Options): string {
  // RSS rises and falls by a hundred MiB between full collections: the last half of the settle's readings, not one instant.
  const lateHalf = (r: RunResult) => r.rssSeries.filter(([at]) => at >= options.settleS / 2).map(([, mib]) => mib);
  const figures: [string, (result: RunResult) => number][] = [
    ["RSS, process tree, mean of the last half", (r) => lateHalf(r).reduce((a, b) => a + b, 0) / lateHalf(r).length],
    ["RSS, process tree, max of the last half", (r) => Math.max(...lateHalf(r))],
    ["RSS, process tree, at the end", (r) => r.rssMiB],
    ["server CPU over the last half, millicores", (r) => r.cpuCores * 1000],
    ["RSS anonymous", (r) => r.rss.anon],
    ["V8 heap committed (total)", (r) => r.probe.memoryUsage.heapTotal / MiB],
    ["V8 heap used", (r) => r.probe.memoryUsage.heapUsed / MiB],
    ["of it new space committed", (r) => (r.probe.heapSpaceSizes.new_space ?? 0) / MiB],
    ["of it old space committed", (r) => (r.probe.heapSpaceSizes.old_space ?? 0) / MiB],
    ["old space used", (r) => (r.probe.heapSpaces.old_space ?? 0) / MiB],
    ["external (array buffers)", (r) => r.probe.memoryUsage.external / MiB],
    ["array buffers", (r) => r.probe.memoryUsage.arrayBuffers / MiB],
    ["V8 malloced (outside the heap)", (r) => r.probe.heapStatistics.malloced_memory / MiB],
    ["heap used after a full GC (kept)", (r) => (r.probe.afterGc?.memoryUsage.heapUsed ?? Number.NaN) / MiB],
    ["array buffers after a full GC", (r) => (r.probe.afterGc?.memoryUsage.arrayBuffers ?? Number.NaN) / MiB],
  ];
  const sizes = bySize.map((results) => results[0]!.gpus ?? 8);
  const medians = figures.map(([, pick]) => bySize.map((results) => median(results.map(pick))));
  const first = sizes[0]!;
  const last = sizes[sizes.length - 1]!;
  const lines = [
    `| MiB (median of ${bySize[0]!.length}) | ${sizes.map((gpus) => `${gpus} GPUs`).join(" | ")} | KiB per GPU, ${first} → ${last} |`,
    `|---|${sizes.map(() => "---:").join("|")}|---:|`,
  ];
  figures.forEach(([name], i) => {
    const row = medians[i]!;
    const slope = ((row[row.length - 1]! - row[0]!) * 1024) / (last - first);
    const perGpu = sizes.length > 1 && !name.includes("CPU");
    lines.push(`| ${name} | ${row.map((value) => value.toFixed(1)).join(" | ")} | ${perGpu ? slope.toFixed(1) : "–"} |`);
  });
  return lines.join("\n");
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const bySize: RunResult[][] = [];
  for (const gpus of options.gpus) {
    const results: RunResult[] = [];
    for (let run = 0; run < options.runs; run++) results.push(await measureOnce(options, run, gpus));
    bySize.push(results);
  }
  const results = bySize.flat();
  process.stdout.write(`${options.nextAlone ? "Next.js alone" : "gpudesk serve"}, ${options.settleS} s after ready, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}\n\n`);
  if (bySize.length > 1) process.stdout.write(`${perGpuReport(bySize, options)}\n\n`);
  process.stdout.write(`${report(bySize[bySize.length - 1]!)}\n`);
  if (options.samplingFile) {
    for (let i = 0; i < 50 && !existsSync(options.samplingFile); i++) await sleep(100);
    process.stdout.write(`\nAllocations that outlived the young generation (first run):\n\n${summarizeSampling(options.samplingFile)}\n`);
  }
  for (const gpus of options.heapFile ? options.gpus : []) {
    const file = heapFileFor(options, gpus);
    process.stdout.write(`\nHeap snapshot ${file} (first run):\n\n${summarizeHeapSnapshot(file)}\n`);
  }
  if (options.json) writeFileSync(options.json, JSON.stringify(results, null, 2));
}

await main();
