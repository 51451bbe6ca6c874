import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * The real Slurm of scripts/slurm/start.sh, for the tests that need it: its
 * settings (the env file the script writes), commands run as a user inside
 * its root filesystem, and a lock so that the sqlite and postgres runs of a
 * test take turns on the one cluster. Without it the tests skip, unless
 * GPUDESK_TEST_SLURM_REQUIRED=1 (as in CI) makes them fail.
 */
export interface TestSlurm {
  url: string;
  jwtKeyFile: string;
  user: string;
  root: string;
  /** Runs a Slurm command as a Unix user of the cluster (ann, bob, gpudesk, root). */
  as(user: string, command: string): Promise<string>;
  /** Stops slurmrestd for real (SIGTERM to the pid start.sh wrote), and waits until its port refuses. */
  stopRestd(): Promise<void>;
  /** Starts slurmrestd again as scripts/slurm/start.sh does, and waits until it answers. */
  startRestd(): Promise<void>;
  release(): void;
}

const ENV_FILE = process.env.GPUDESK_TEST_SLURM_ENV ?? path.join(process.env.GPUDESK_SLURM_CACHE ?? "/var/cache/gpudesk-slurm", `run-${process.env.GPUDESK_SLURM_PORT_BASE ?? "4310"}`, "env");
const LOCK = `${ENV_FILE}.test-lock`;

export function slurmForTests(): { available: boolean; reason: string } {
  if (!existsSync(ENV_FILE)) return { available: false, reason: `no Slurm for tests (${ENV_FILE} missing: run scripts/slurm/start.sh as root)` };
  return { available: true, reason: "" };
}

export async function useTestSlurm(): Promise<TestSlurm> {
  const settings = Object.fromEntries(
    readFileSync(ENV_FILE, "utf8")
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  await takeLock();
  const root = settings.GPUDESK_SLURM_ROOT;
  const as = async (user: string, command: string): Promise<string> => {
    const { stdout } = await run(
      "unshare",
      ["--mount", "--fork", "--", "sh", "-c", 'mount -t proc proc "$0/proc" && exec chroot --userspec="$1:$1" "$0" sh -c "cd ~$1 2>/dev/null; $2"', root, user, command],
      { timeout: 30_000 },
    );
    return stdout;
  };
  const url = settings.GPUDESK_SLURM_URL;
  const pidFile = path.join(root, "run", "slurmrestd.pid");
  const answers = async () => {
    try {
      await fetch(`${url}/openapi/v3`, { signal: AbortSignal.timeout(2000) });
      return true;
    } catch {
      return false;
    }
  };
  const waitUntil = async (what: string, done: () => Promise<boolean>) => {
    for (let attempt = 0; attempt < 150; attempt++) {
      if (await done()) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`slurmrestd at ${url}: ${what} did not happen`);
  };
  const stopRestd = async () => {
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // gone already
    }
    await waitUntil("stopping", async () => !(await answers()));
  };
  const startRestd = async () => {
    const address = new URL(url).host;
    // As start.sh starts it: its own user, each caller's token passed on (SLURM_JWT=daemon), outliving this shell.
    await as("root", `SLURM_JWT=daemon setsid /usr/sbin/slurmrestd -u slurmrest -g slurmrest -a rest_auth/jwt ${address} </dev/null >>/var/log/slurm/slurmrestd.log 2>&1 & echo $! >/run/slurmrestd.pid`);
    await waitUntil("starting", answers);
  };
  return { url, jwtKeyFile: settings.GPUDESK_SLURM_JWT_KEY, user: settings.GPUDESK_SLURM_USER, root, as, stopRestd, startRestd, release: () => rmSync(LOCK, { recursive: true, force: true }) };
}

/** One test file at a time on the cluster; a lock older than 10 minutes was left by a crash. */
async function takeLock(): Promise<void> {
  for (let attempt = 0; attempt < 1200; attempt++) {
    try {
      mkdirSync(LOCK);
      return;
    } catch {
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 600_000) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // taken away meanwhile
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`the test Slurm stayed locked (${LOCK})`);
}
