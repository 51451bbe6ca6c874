import { closeSync, openSync, readSync } from "node:fs";
import path from "node:path";
import { BOOKING_VARIABLE } from "@/lib/domain/booking-claim";
import type { ProcessInfo, Snapshot } from "@/lib/domain/snapshot";
import { createUserLookup, type LookupUser } from "@/host/collector/proc/lookup-user";
import { parseCgroup } from "@/host/collector/proc/parse-cgroup";
import {
  bracketedName,
  findEnvironValue,
  parseBootTime,
  parseCmdline,
  parseRealUid,
  parseBookingId,
  parseStat,
} from "@/host/collector/proc/parse-proc-files";

/** The fields of a process that only /proc can answer, and its real uid (what enforcement checks: never root or system users). */
export type Ownership = Pick<
  ProcessInfo,
  "user" | "command" | "startedAt" | "container" | "slurmJobId" | "reservationId"
> & { uid: number | null };

export interface ProcReader {
  /**
   * Reads who owns `pid`. Null when the process no longer exists (it exited
   * between the GPU query and this read, which is normal) or the pid is not
   * a valid one. Never rejects; a file that cannot be read only nulls the
   * fields that come from it.
   */
  readOwnership(pid: number): Promise<Ownership | null>;
}

export interface ProcReaderOptions {
  procRoot?: string;
  /** Defaults to a cached getent/passwd lookup; see createUserLookup. */
  lookupUser?: LookupUser;
  /** USER_HZ, the unit of stat's starttime; 100 on every mainstream Linux. */
  clockTicksPerSecond?: number;
  /**
   * How long what /proc said of a process is reused while its pid keeps its
   * start time (the same process, not a reused pid): each read then opens
   * `stat` alone instead of five files. Owner, command line, cgroup and
   * GPUDESK_RESERVATION are fixed at exec for the processes that matter here,
   * and are read again at the latest after this long. Default 0: every read
   * reads everything, as the enforcer wants before each signal.
   */
  reuseMs?: number;
  now?: () => number;
}

interface Remembered {
  startTicks: number;
  readAt: number;
  ownership: Ownership;
}

// Reads stop here: argv and environ can reach megabytes (long classpaths),
// and we keep at most 4096 characters of one and a single variable of the other.
const MAX_CMDLINE_BYTES = 16 * 1024; // 4096 characters of up to 4 UTF-8 bytes
const MAX_ENVIRON_BYTES = 1024 * 1024;
const MAX_SMALL_FILE_BYTES = 64 * 1024;
const READ_CHUNK_BYTES = 16 * 1024;

// The process exited (ENOENT) or exited while its file was open (ESRCH).
const VANISHED = Symbol("vanished");
type ReadResult = Buffer | null | typeof VANISHED;

export function createProcReader(options: ProcReaderOptions = {}): ProcReader {
  const { procRoot = "/proc", lookupUser = createUserLookup(), clockTicksPerSecond = 100, reuseMs = 0, now = Date.now } = options;
  if (!(clockTicksPerSecond > 0 && Number.isFinite(clockTicksPerSecond))) {
    throw new RangeError(`clockTicksPerSecond must be a positive number, got ${clockTicksPerSecond}`);
  }
  let bootTime: number | null = null;
  const remembered = new Map<number, Remembered>();
  let prunedAt = now();

  /** Forgets processes not asked about for a while, so exited pids do not pile up. */
  function prune(at: number): void {
    if (at - prunedAt < reuseMs) return;
    prunedAt = at;
    for (const [pid, entry] of remembered) if (at - entry.readAt >= reuseMs) remembered.delete(pid);
  }

  // Boot time is read once: the kernel recomputes btime on every read and it
  // can wobble by a second under NTP slewing, which would make one process's
  // startedAt flicker between snapshots. A failed read is retried next time.
  function readBootTime(): number | null {
    if (bootTime !== null) return bootTime;
    const raw = readBounded(path.join(procRoot, "stat"), MAX_SMALL_FILE_BYTES);
    bootTime = raw === null || raw === VANISHED ? null : parseBootTime(raw.toString("utf8"));
    return bootTime;
  }


  async function resolveUser(uid: number | null): Promise<string | null> {
    if (uid === null) return null;
    try {
      return (await lookupUser(uid)) ?? String(uid);
    } catch {
      return String(uid);
    }
  }

  async function readOwnership(pid: number): Promise<Ownership | null> {
    // The pid becomes a path segment, so anything but a positive integer is refused.
    if (!Number.isSafeInteger(pid) || pid <= 0) return null;
    const dir = path.join(procRoot, String(pid));
    const at = now();
    let stat: ReadResult | undefined;
    if (reuseMs > 0) {
      prune(at);
      stat = readBounded(path.join(dir, "stat"), MAX_SMALL_FILE_BYTES);
      if (stat === VANISHED) {
        remembered.delete(pid);
        return null;
      }
      const known = remembered.get(pid);
      const startTicks = stat === null ? null : parseStat(stat.toString("utf8"))?.startTicks;
      if (known && known.startTicks === startTicks && at - known.readAt < reuseMs) return known.ownership;
    }
    const results = [
      readBounded(path.join(dir, "status"), MAX_SMALL_FILE_BYTES),
      stat ?? readBounded(path.join(dir, "stat"), MAX_SMALL_FILE_BYTES),
      readBounded(path.join(dir, "cmdline"), MAX_CMDLINE_BYTES),
      readBounded(path.join(dir, "cgroup"), MAX_SMALL_FILE_BYTES),
      readBounded(path.join(dir, "environ"), MAX_ENVIRON_BYTES),
    ];
    if (results.includes(VANISHED)) {
      remembered.delete(pid);
      return null;
    }
    const [status, statRead, cmdline, cgroup, environ] = results as (Buffer | null)[];

    const statFields = statRead === null ? null : parseStat(statRead.toString("utf8"));
    let command = cmdline === null ? null : parseCmdline(cmdline);
    if (command === null) {
      const comm = statFields?.comm ?? readComm(dir);
      if (comm === VANISHED) return null;
      command = comm === null ? null : bracketedName(comm);
    }

    const uid = status === null ? null : parseRealUid(status.toString("utf8"));
    const user = await resolveUser(uid);
    const bootSeconds = readBootTime();
    const startedAt =
      statFields === null || bootSeconds === null
        ? null
        : isoTime((bootSeconds + statFields.startTicks / clockTicksPerSecond) * 1000);

    const { container, slurmJobId } =
      cgroup === null ? { container: null, slurmJobId: null } : parseCgroup(cgroup.toString("utf8"));
    const bookingId =
      environ === null ? null : parseBookingId(findEnvironValue(environ, BOOKING_VARIABLE));

    const ownership = { uid, user, command, startedAt, container, slurmJobId, reservationId: bookingId };
    if (reuseMs > 0 && statFields !== null) remembered.set(pid, { startTicks: statFields.startTicks, readAt: at, ownership });
    return ownership;
  }

  return { readOwnership };
}

export interface EnrichOptions {
  /** Pids read at once; each read opens about six files. */
  concurrency?: number;
}

/**
 * Fills the ownership fields of every process in `snapshot` from /proc and
 * returns a new snapshot. A pid listed on several GPUs is read once. Where
 * /proc has no answer (the process exited, a file was unreadable) the
 * source's value is kept, which is null for nvidia-smi.
 */
export async function enrichProcesses(
  snapshot: Snapshot,
  reader: ProcReader,
  options: EnrichOptions = {},
): Promise<Snapshot> {
  const concurrency = Math.max(1, options.concurrency ?? 16);
  const pids = [...new Set(snapshot.processes.map((p) => p.pid))];
  const owners = new Map<number, Ownership | null>();
  let next = 0;
  async function worker(): Promise<void> {
    while (next < pids.length) {
      const pid = pids[next++];
      // readOwnership does not reject by contract; the catch keeps one
      // misbehaving reader (a custom one, a bug) from losing the snapshot.
      owners.set(pid, await reader.readOwnership(pid).catch(() => null));
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, pids.length) }, worker));

  return {
    ...snapshot,
    processes: snapshot.processes.map((p) => {
      const own = owners.get(p.pid) ?? null;
      return {
        ...p,
        user: own?.user ?? p.user,
        command: own?.command ?? p.command,
        startedAt: own?.startedAt ?? p.startedAt,
        container: own?.container ?? p.container,
        slurmJobId: own?.slurmJobId ?? p.slurmJobId,
        reservationId: own?.reservationId ?? p.reservationId,
      };
    }),
  };
}

/** Null instead of toISOString's RangeError for a time a corrupt btime could produce. */
function isoTime(epochMs: number): string | null {
  const date = new Date(Math.round(epochMs));
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** `comm` alone, for when stat was unreadable but argv was empty. */
function readComm(dir: string): string | null | typeof VANISHED {
  const raw = readBounded(path.join(dir, "comm"), MAX_SMALL_FILE_BYTES);
  return raw === null || raw === VANISHED ? raw : raw.toString("utf8").replace(/\n$/, "");
}

/**
 * Reads at most `maxBytes` of a file. /proc files report size 0, so this
 * reads until end of file instead of trusting stat. VANISHED for a process
 * that is gone; null for any other failure (EACCES on another user's
 * environ when the agent is not root, EIO, ...), which only costs the fields
 * that come from this file.
 *
 * Synchronous on purpose: the kernel writes a /proc file in microseconds, and
 * libuv's thread pool, which asynchronous reads go through, cost the agent
 * more CPU than the read and a malloc arena per pool thread in RSS.
 */
function readBounded(file: string, maxBytes: number): ReadResult {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    // Chunks, so that a 1 MiB bound does not mean 1 MiB allocated for a
    // typical 3 KiB environ.
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < maxBytes) {
      // Unzeroed: only the bytes read are kept.
      const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, maxBytes - total));
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    return Buffer.concat(chunks, total);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ESRCH" ? VANISHED : null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
