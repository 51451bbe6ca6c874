/**
 * What the benchmark reads about its processes from /proc (Linux): CPU time
 * (utime + stime, children excluded) and resident memory.
 */
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK)

/** CPU seconds a process has used so far (user + system), or NaN when it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** Resident set size in MiB, or NaN when the process is gone. */
export function rssMiB(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Resident memory in MiB by kind: anonymous (heaps, malloc), file-backed (the node binary, shared libraries, mapped files) and shared memory; NaN when the process is gone. */
export function rssPartsMiB(pid: number): { anon: number; file: number; shmem: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? Number.NaN) / 1024;
    return { anon: kib("RssAnon"), file: kib("RssFile"), shmem: kib("RssShmem") };
  } catch {
    return { anon: Number.NaN, file: Number.NaN, shmem: Number.NaN };
  }
}

/** CPU use of a set of processes between two moments, in cores (1 = one core busy all the time). */
export class CpuMeter {
  private readonly start: Map<number, number>;
  private readonly startedAt = performance.now();

  constructor(private readonly pids: number[]) {
    this.start = new Map(pids.map((pid) => [pid, cpuSeconds(pid)]));
  }

  /** Cores used per process since construction. */
  cores(): Map<number, number> {
    const seconds = (performance.now() - this.startedAt) / 1000;
    return new Map(this.pids.map((pid) => [pid, (cpuSeconds(pid) - this.start.get(pid)!) / seconds]));
  }
}

/** The process and its descendants, from each process's parent in /proc/PID/stat. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone between the listing and the read
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

/** Resident set size of a process and all its descendants, in MiB (NaN when the process is gone). */
export function treeRssMiB(pid: number): number {
  return processTree(pid).reduce((sum, member) => sum + rssMiB(member), 0);
}
