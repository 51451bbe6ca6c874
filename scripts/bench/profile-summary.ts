/**
 * Where a V8 CPU profile's time went (`npm run bench -- --cpu-prof DIR`
 * writes one per server): self time summed by area (a folder of this repo,
 * an npm package, Node's internals, garbage collection), by file or by
 * function, with each row's share of the busy time (idle excluded). The
 * shares, unlike wall-clock figures, hardly move with the machine's load.
 *
 *   npx tsx scripts/bench/profile-summary.ts DIR/CPU.….cpuprofile
 *   npx tsx scripts/bench/profile-summary.ts FILE --by function --top 40 --from 30
 *   npx tsx scripts/bench/profile-summary.ts FILE --by function --match 'server/(fleet|alerts)'
 *
 * `--from S` / `--to S` keep the samples between S seconds after the
 * profile's start and that end (the start-up's module loading out of a
 * steady-state figure). With `--by function` a column gives each function's
 * total time (itself and what it called).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { argsOrExit, exitWithUsage, flag } from "./args";

/** The parts of the `.cpuprofile` format (Chrome DevTools protocol `Profiler.Profile`) read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export type Grouping = "area" | "file" | "function";

export interface SummaryRow {
  name: string;
  selfMs: number;
  /** Self time plus callees' (by function only: a sample counts once per function however deep the recursion). */
  totalMs: number | null;
  /** Self time over busy time. */
  share: number;
}

export interface ProfileSummary {
  /** Time of the kept window (ms). */
  windowMs: number;
  /** Time not idle (ms). */
  busyMs: number;
  rows: SummaryRow[];
}

export interface SummaryOptions {
  by: Grouping;
  /** Seconds after the profile's start; samples before are left out. */
  fromS?: number;
  toS?: number;
  /** The repository's root, stripped from file URLs. */
  root: string;
}

const SPECIAL: Record<string, string> = {
  "(garbage collector)": "garbage collection",
  "(program)": "V8 (program: compiling, runtime)",
  "(idle)": "(idle)",
  "(root)": "(root)",
};

/** `node_modules/@scope/name/…` → `@scope/name`, `node_modules/name/…` → `name` (the innermost node_modules). */
function packageOf(file: string): string | null {
  const at = file.lastIndexOf("node_modules/");
  if (at < 0) return null;
  const parts = file.slice(at + "node_modules/".length).split("/");
  return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

function fileOf(url: string, root: string): string {
  let file = url.startsWith("file://") ? fileURLToPath(url) : url;
  if (file.startsWith(root + path.sep)) file = file.slice(root.length + 1);
  return file;
}

/** Where a frame's self time is filed under `by`. */
function groupOf(frame: CpuProfile["nodes"][number]["callFrame"], by: Grouping, root: string): string {
  const special = SPECIAL[frame.functionName];
  if (special && frame.url === "") return special;
  if (frame.url === "") return by === "function" ? `${frame.functionName || "(anonymous)"} (native)` : "native and builtins";
  const file = fileOf(frame.url, root);
  if (by === "function") return `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
  if (by === "file") return file;
  if (file.startsWith("node:")) return "node internals";
  const pkg = packageOf(file);
  if (pkg) return pkg;
  // This repository's code: by folder, two levels for server/ (server/fleet), one elsewhere (lib).
  const parts = file.split("/");
  if (parts.length === 1) return file;
  if (parts[0] === "server" || parts[0] === "scripts" || parts[0] === ".next") return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
  return parts[0]!;
}

/** Sums self (and, by function, total) time of a profile's samples by group. */
export function summarizeProfile(profile: CpuProfile, options: SummaryOptions): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const group = new Map<number, string>();
  for (const node of profile.nodes) group.set(node.id, groupOf(node.callFrame, options.by, options.root));

  const from = options.fromS === undefined ? -Infinity : options.fromS * 1e6;
  const to = options.toS === undefined ? Infinity : options.toS * 1e6;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let windowUs = 0;
  let idleUs = 0;
  // A sample's time is the gap to the next one (as DevTools counts it).
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const duration = i + 1 < profile.samples.length ? (profile.timeDeltas[i + 1] ?? 0) : 0;
    if (at < from || at >= to || duration <= 0) continue;
    const id = profile.samples[i]!;
    const name = group.get(id) ?? "(unknown)";
    windowUs += duration;
    if (name === "(idle)") {
      idleUs += duration;
      continue;
    }
    self.set(name, (self.get(name) ?? 0) + duration);
    if (options.by === "function") {
      const seen = new Set<string>();
      for (let node: number | undefined = id; node !== undefined && byId.has(node); node = parent.get(node)) {
        const key = group.get(node)!;
        if (seen.has(key)) continue;
        seen.add(key);
        total.set(key, (total.get(key) ?? 0) + duration);
      }
    }
  }
  const busyUs = windowUs - idleUs;
  const names = new Set([...self.keys(), ...(options.by === "function" ? total.keys() : [])]);
  names.delete("(root)");
  const rows: SummaryRow[] = [...names].map((name) => ({
    name,
    selfMs: (self.get(name) ?? 0) / 1000,
    totalMs: options.by === "function" ? (total.get(name) ?? 0) / 1000 : null,
    share: busyUs > 0 ? (self.get(name) ?? 0) / busyUs : 0,
  }));
  rows.sort((a, b) => b.selfMs - a.selfMs || (b.totalMs ?? 0) - (a.totalMs ?? 0));
  return { windowMs: windowUs / 1000, busyMs: busyUs / 1000, rows };
}

/** The summary as a markdown table, `top` rows (by self time, or those matching `match` by total time). */
export function formatSummary(summary: ProfileSummary, top: number, match?: RegExp): string {
  let rows = summary.rows;
  if (match) rows = rows.filter((row) => match.test(row.name)).sort((a, b) => (b.totalMs ?? b.selfMs) - (a.totalMs ?? a.selfMs));
  const withTotal = rows.some((row) => row.totalMs !== null);
  const lines = [
    `window ${(summary.windowMs / 1000).toFixed(1)} s, busy ${(summary.busyMs / 1000).toFixed(1)} s (${((summary.busyMs / Math.max(summary.windowMs, 1)) * 100).toFixed(0)} %)`,
    "",
    withTotal ? "| where | self ms | share of busy | total ms |" : "| where | self ms | share of busy |",
    withTotal ? "|---|---:|---:|---:|" : "|---|---:|---:|",
  ];
  for (const row of rows.slice(0, top)) {
    const cells = [row.name.replace(/\|/g, "\\|"), row.selfMs.toFixed(0), `${(row.share * 100).toFixed(1)} %`];
    if (withTotal) cells.push((row.totalMs ?? 0).toFixed(0));
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

const USAGE = "usage: profile-summary.ts FILE.cpuprofile [--by area|file|function] [--top 25] [--from S] [--to S] [--match REGEX] [--root DIR]";

function main(argv: string[]): void {
  const { flags, positionals: files } = argsOrExit(
    argv,
    {
      by: flag.choice(["area", "file", "function"], "area"),
      top: flag.whole(25),
      from: flag.number(null),
      to: flag.number(null),
      root: flag.text(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")),
      match: flag.text(null),
    },
    USAGE,
    { positionals: true },
  );
  const options: SummaryOptions = { by: flags.by, root: path.resolve(flags.root), fromS: flags.from ?? undefined, toS: flags.to ?? undefined };
  const { top } = flags;
  const match = flags.match === null ? undefined : new RegExp(flags.match);
  if (files.length === 0) exitWithUsage("no profile named", USAGE);
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
    console.log(`## ${file}\n`);
    console.log(formatSummary(summarizeProfile(profile, options), top, match));
    console.log("");
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
