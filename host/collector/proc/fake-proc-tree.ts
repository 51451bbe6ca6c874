import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * Test support: builds a throwaway /proc-shaped directory, so the reader's
 * tests own their data and never depend on the machine's processes.
 */

export interface FakeProcess {
  pid: number;
  uid?: number;
  comm?: string;
  startTicks?: number;
  /** argv; an empty array writes an empty cmdline (kernel thread, zombie). */
  argv?: string[];
  cgroup?: string;
  /** `NAME=value` entries. */
  environ?: string[];
  /** Files to leave out, as if they had vanished or never existed. */
  omit?: Array<"status" | "stat" | "cmdline" | "cgroup" | "environ" | "comm">;
  /** Raw contents that replace the generated ones. */
  raw?: Partial<Record<"status" | "stat" | "cmdline" | "cgroup" | "environ", string>>;
}

export interface FakeProcTree {
  procRoot: string;
  passwdPath: string;
  /** The directory of one pid, for tests that alter files afterwards. */
  pidDir(pid: number): string;
  cleanup(): Promise<void>;
}

export const DEFAULT_PASSWD = [
  "# comment lines are skipped",
  "root:x:0:0:root:/root:/bin/bash",
  "alice:x:1000:1000:Alice:/home/alice:/bin/bash",
  "bob:x:1001:1001:Bob:/home/bob:/bin/zsh",
  "+@nisgroup::::::",
  "",
].join("\n");

export async function createFakeProcTree(options: {
  btime: number;
  processes: FakeProcess[];
  passwd?: string;
}): Promise<FakeProcTree> {
  const base = await mkdtemp(path.join(tmpdir(), "gpudesk-proc-"));
  const procRoot = path.join(base, "proc");
  const passwdPath = path.join(base, "passwd");
  await mkdir(procRoot);
  await writeFile(passwdPath, options.passwd ?? DEFAULT_PASSWD);
  await writeFile(
    path.join(procRoot, "stat"),
    `cpu  1 2 3 4 5 6 7 0 0 0\nintr 0\nctxt 12345\nbtime ${options.btime}\nprocesses 99\n`,
  );
  for (const proc of options.processes) await writeProcess(procRoot, proc);
  return {
    procRoot,
    passwdPath,
    pidDir: (pid) => path.join(procRoot, String(pid)),
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

async function writeProcess(procRoot: string, proc: FakeProcess): Promise<void> {
  const dir = path.join(procRoot, String(proc.pid));
  await mkdir(dir);
  const uid = proc.uid ?? 1000;
  const comm = proc.comm ?? "python3";
  const argv = proc.argv ?? ["python3", "train.py"];
  const files: Record<string, string> = {
    status: proc.raw?.status ?? statusText(proc.pid, comm, uid),
    stat: proc.raw?.stat ?? statText(proc.pid, comm, proc.startTicks ?? 5000),
    cmdline: proc.raw?.cmdline ?? (argv.length === 0 ? "" : `${argv.join("\0")}\0`),
    cgroup: proc.raw?.cgroup ?? proc.cgroup ?? "0::/user.slice/user-1000.slice/session-3.scope\n",
    environ: proc.raw?.environ ?? (proc.environ ?? ["PATH=/usr/bin", "HOME=/home/alice"]).map((e) => `${e}\0`).join(""),
    comm: `${comm}\n`,
  };
  for (const [name, content] of Object.entries(files)) {
    if (proc.omit?.includes(name as never)) continue;
    await writeFile(path.join(dir, name), content);
  }
}

function statusText(pid: number, comm: string, uid: number): string {
  return [
    `Name:\t${comm}`,
    "Umask:\t0022",
    "State:\tS (sleeping)",
    `Tgid:\t${pid}`,
    `Pid:\t${pid}`,
    "PPid:\t1",
    // Real, effective, saved, filesystem: distinct values prove which is read.
    `Uid:\t${uid}\t${uid + 7}\t${uid + 8}\t${uid + 9}`,
    `Gid:\t${uid}\t${uid}\t${uid}\t${uid}`,
    "",
  ].join("\n");
}

/** A full 52-field stat line with `startTicks` at field 22. */
export function statText(pid: number, comm: string, startTicks: number): string {
  const afterComm = [
    "S", "1", "100", "100", "0", "-1", "4194560", "6071", "0", "0", "0", "4", "32", "0", "0",
    "20", "0", "3", "0", String(startTicks), "17131106304", "27445",
  ];
  while (afterComm.length < 50) afterComm.push("0");
  return `${pid} (${comm}) ${afterComm.join(" ")}\n`;
}
