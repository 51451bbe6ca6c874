/**
 * `tsx scripts/bench/server-memory.ts`: where the memory of a small gpudesk server goes.
 * Starts `gpudesk serve` as `npm start` does (prebuilt server, fresh SQLite database, the
 * embedded 8-GPU simulated fleet), serves one page, waits, then reads RSS from /proc and
 * asks the memory probe inside (scripts/bench/memory-probe.mjs) for the V8 heap, external
 * memory, code and the files loaded by package. Runs several times and prints the median.
 * `--next-alone` does the same for Next.js alone serving this app's build (the baseline).
 *
 *   tsx scripts/bench/server-memory.ts [--runs 3] [--settle 30] [--port 3516] [--page /login]
 *     [--next-alone] [--modules] [--heap FILE] [--gpus N] [--json FILE]
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { argsOrExit, flag } from "./args";
import { rssMiB, rssPartsMiB } from "./processes";
import { repoRoot } from "./scenario";

interface Options {
  runs: number;
  settleS: number;
  port: number;
  page: string | null;
  nextAlone: boolean;
  modules: boolean;
  heapFile: string | null;
  gpus: number | null;
  json: string | null;
}

interface ProbeReport {
  memoryUsage: NodeJS.MemoryUsage;
  heapSpaces: Record<string, number>;
  heapCode: { code_and_metadata_size: number; bytecode_and_metadata_size: number; external_script_source_size: number };
  modules: { files: number; esmCounted: boolean; byPackage: Record<string, { files: number; bytes: number }> };
}

interface RunResult {
  rssMiB: number;
  rss: { anon: number; file: number; shmem: number };
  probe: ProbeReport;
}

const USAGE = `usage: tsx scripts/bench/server-memory.ts [--runs 3] [--settle 30] [--port 3516] [--page /login]
  [--next-alone] [--modules] [--heap FILE] [--gpus N] [--json FILE]`;

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
      gpus: flag.whole(null),
      json: flag.text(null),
    },
    USAGE,
  );
  const { settle: settleS, heap, ...rest } = flags;
  return { ...rest, settleS, heapFile: heap === null ? null : path.resolve(heap) };
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

async function measureOnce(options: Options, run: number): Promise<RunResult> {
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
    ...(options.modules ? { GPUDESK_MEMORY_PROBE_MODULES: "1" } : {}),
    ...(options.heapFile && run === 0 ? { GPUDESK_MEMORY_PROBE_HEAP: options.heapFile } : {}),
    ...(options.gpus ? { GPUDESK_SIM_GPUS: String(options.gpus) } : {}),
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const entry = options.nextAlone ? path.join(repoRoot, "scripts", "bench", "next-alone.mjs") : path.join(repoRoot, "bin", "gpudesk.js");
  const probe = path.join(repoRoot, "scripts", "bench", "memory-probe.mjs");
  const child = spawn(process.execPath, ["--import", probe, entry, ...(options.nextAlone ? [] : ["serve"])], {
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
    await sleep(Math.max(0, readyAt + options.settleS * 1000 - Date.now()));
    rmSync(probeFile, { force: true });
    child.kill("SIGUSR2");
    for (let i = 0; i < 600 && !existsSync(probeFile); i++) await sleep(100);
    const result = { rssMiB: rssMiB(child.pid!), rss: rssPartsMiB(child.pid!), probe: JSON.parse(readFileSync(probeFile, "utf8")) as ProbeReport };
    process.stderr.write(`run ${run + 1}: ${page} answered ${response.status}; RSS ${result.rssMiB.toFixed(0)} MiB\n`);
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

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const results: RunResult[] = [];
  for (let run = 0; run < options.runs; run++) results.push(await measureOnce(options, run));
  process.stdout.write(`${options.nextAlone ? "Next.js alone" : "gpudesk serve"}, ${options.settleS} s after ready, load ${os.loadavg()[0]!.toFixed(1)}\n\n${report(results)}\n`);
  if (options.heapFile) process.stdout.write(`\nHeap snapshot ${options.heapFile} (first run):\n\n${summarizeHeapSnapshot(options.heapFile)}\n`);
  if (options.json) writeFileSync(options.json, JSON.stringify(results, null, 2));
}

await main();
