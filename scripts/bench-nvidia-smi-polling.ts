/**
 * CPU cost of the two polling modes of the nvidia-smi source: the agent
 * process plus every nvidia-smi child it runs, at one read per interval.
 *
 *   npx tsx scripts/bench-nvidia-smi-polling.ts [--seconds 30] [--interval-ms 1000]
 *       [--nvidia-smi PATH] [--modes spawn,long-lived]
 *
 * Without --nvidia-smi it runs against scripts/fake-nvidia-smi.mjs, whose
 * children are node processes: their cost stands in for nvidia-smi's and is
 * not nvidia-smi's. The agent's own share is the transferable figure; the
 * real-hardware figure for the children comes from
 * host/collector/fixtures/h200-driver-580/polling-cost.txt.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { createNvidiaSmiSource, type NvidiaSmiMode } from "@/host/collector/nvidia-smi/nvidia-smi-source";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const argsSchema = z.object({
  seconds: z.coerce.number().positive().max(3600).default(30),
  intervalMs: z.coerce.number().int().min(50).max(60_000).default(1000),
  nvidiaSmi: z.string().min(1).max(4096).default(path.join(repoRoot, "scripts/fake-nvidia-smi.mjs")),
  modes: z
    .string()
    .default("spawn,long-lived")
    .transform((s) => s.split(","))
    .pipe(z.array(z.enum(["spawn", "long-lived"])).min(1)),
});

function parseArgs(argv: string[]) {
  const raw: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!match) throw new Error(`unexpected argument ${argv[i]}`);
    const key = match[1].replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    raw[key] = match[2] ?? argv[++i] ?? "";
  }
  return argsSchema.parse(raw);
}

const clockTicks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime, stime, cutime, cstime of a /proc/<pid>/stat, in clock ticks. */
function statTimes(pid: number | "self"): [number, number, number, number] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14–17 of proc(5); the slice starts at field 3.
    return [Number(fields[11]), Number(fields[12]), Number(fields[13]), Number(fields[14])];
  } catch {
    return null;
  }
}

/**
 * CPU seconds of all children so far: those already reaped (counted in our
 * cutime/cstime) plus those still running (read from their own stat).
 */
function childrenCpuSeconds(): number {
  let ticks = 0;
  const self = statTimes("self");
  if (self) ticks += self[2] + self[3];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== process.pid) continue;
      const times = statTimes(Number(entry));
      if (times) ticks += times[0] + times[1] + times[2] + times[3];
    } catch {
      // It ended while we looked; its time is now in our cutime.
    }
  }
  return ticks / clockTicks;
}

const ownCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

interface Result {
  mode: NvidiaSmiMode;
  reads: number;
  failures: number;
  wallSeconds: number;
  agentSeconds: number;
  childrenSeconds: number;
}

async function measure(mode: NvidiaSmiMode, args: ReturnType<typeof parseArgs>): Promise<Result> {
  const logs: string[] = [];
  const source = await createNvidiaSmiSource({
    path: args.nvidiaSmi,
    hostName: "bench",
    intervalMs: args.intervalMs,
    mode,
    log: (line) => logs.push(line),
  });
  // Start-up (the -q -x probe, the first tick) is not part of the steady cost.
  await source.read();
  const start = { wall: performance.now(), agent: ownCpuSeconds(), children: childrenCpuSeconds() };
  let reads = 0;
  let failures = 0;
  const end = start.wall + args.seconds * 1000;
  for (let next = start.wall; next < end; next += args.intervalMs) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
    try {
      await source.read();
      reads++;
    } catch {
      failures++;
    }
  }
  const wallSeconds = (performance.now() - start.wall) / 1000;
  const agentSeconds = ownCpuSeconds() - start.agent;
  // After close() the children are reaped, so their whole time is in cutime.
  await source.close();
  const childrenSeconds = childrenCpuSeconds() - start.children;
  for (const line of logs) console.log(`  [${mode}] ${line}`);
  return { mode, reads, failures, wallSeconds, agentSeconds, childrenSeconds };
}

/** The H200 measurement: CPU seconds per hour at 1 Hz, from the captured polling-cost.txt. */
function realHardwareFigures(): { spawn: number; longLived: number } | null {
  try {
    const text = readFileSync(path.join(repoRoot, "host/collector/fixtures/h200-driver-580/polling-cost.txt"), "utf8");
    const hz = Number(/1\/(\d+) s/.exec(text)?.[1] ?? 100);
    const spawn = /ticks \(1\/\d+ s\): (\d+) over (\d+) samples/.exec(text);
    const loop = /children CPU ticks: (\d+) over (\d+) s/.exec(text);
    if (!spawn || !loop) return null;
    return {
      spawn: (Number(spawn[1]) / hz / Number(spawn[2])) * 3600,
      longLived: (Number(loop[1]) / hz / Number(loop[2])) * 3600,
    };
  } catch {
    return null;
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  console.log(
    `nvidia-smi polling cost: ${args.seconds} s per mode, one read every ${args.intervalMs} ms, against ${args.nvidiaSmi}`,
  );
  const results: Result[] = [];
  for (const mode of args.modes) results.push(await measure(mode, args));

  const perHour = (seconds: number, wall: number) => ((seconds / wall) * 3600).toFixed(1).padStart(8);
  console.log("\nmode         reads  failed   agent CPU-s/h  children CPU-s/h  total CPU-s/h");
  for (const r of results) {
    console.log(
      `${r.mode.padEnd(11)} ${String(r.reads).padStart(6)} ${String(r.failures).padStart(7)}   ${perHour(r.agentSeconds, r.wallSeconds)}        ${perHour(r.childrenSeconds, r.wallSeconds)}         ${perHour(r.agentSeconds + r.childrenSeconds, r.wallSeconds)}`,
    );
  }
  const real = realHardwareFigures();
  if (real) {
    console.log(
      `\nReal hardware (H200, driver 580, fixtures/h200-driver-580/polling-cost.txt), nvidia-smi children only, 1 Hz:\n` +
        `  spawn (two queries per sample): ${real.spawn.toFixed(1)} CPU-s/h\n` +
        `  long-lived -lms (GPU query only; the process query child comes on top): ${real.longLived.toFixed(1)} CPU-s/h\n` +
        "This script against the real nvidia-smi on an H200: host/collector/fixtures/h200-device-check/bench-nvidia-smi-polling.txt",
    );
  }
  if (args.nvidiaSmi.endsWith("fake-nvidia-smi.mjs")) {
    console.log("The children here are the fake (node), not nvidia-smi: compare the agent column, not the children column.");
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
