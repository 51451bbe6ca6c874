import type { EnforcementAction, EnforcementReport, TerminateCommand } from "@/lib/domain/enforcement-protocol";
import type { Snapshot } from "@/lib/domain/snapshot";
import type { Ownership, ProcReader } from "@/host/collector/proc/proc-reader";

export interface EnforcerOptions {
  /** `--allow-enforcement`: without it every request is refused and nothing is signalled. */
  allow: boolean;
  /** Reads the process again before each signal (owner, start time, GPUDESK_RESERVATION). */
  reader: ProcReader;
  /**
   * This agent's own latest GPU reading (nvidia-smi's process list, with
   * /proc's start times): a pid is signalled only while that reading places
   * it on the GPU the request names. Null before the first reading.
   */
  latestReading: () => Snapshot | null;
  /** A reading older than this is no proof of anything now (default: 10 s). */
  maxReadingAgeMs?: number;
  /** Processes of uids below this are never signalled (system users); root never, whatever this says. Default 1000. */
  minUid?: number;
  report: (report: EnforcementReport) => void;
  log: (message: string) => void;
  signal?: (pid: number, signal: NodeJS.Signals) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const MAX_COMMAND_CHARS = 1024;
/** Start times computed from two reads of btime may differ by a second (NTP slewing); a reused pid differs by far more. */
const SAME_START_TOLERANCE_MS = 2000;

export const DEFAULT_MIN_UID = 1000;
const DEFAULT_MAX_READING_AGE_MS = 10_000;

/** Whether two start times name the same process. An unknown start never matches: it could be anyone's. */
function sameStart(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const gap = Math.abs(Date.parse(a) - Date.parse(b));
  return Number.isFinite(gap) && gap <= SAME_START_TOLERANCE_MS;
}

/**
 * The agent's side of enforcement. The server decides who intrudes; the
 * agent, which runs as root next to the process, has the last word and
 * takes nobody's word for it (a forged or mistaken request names any pid):
 * it refuses unless it was started with --allow-enforcement; unless its own
 * latest nvidia-smi reading lists the pid as a compute process on the GPU
 * the request names; unless the start time the request gives is the
 * process's (a missing one never matches); for root and system users
 * (uid below `minUid`); and for a process of the booker (by
 * GPUDESK_RESERVATION or by login), whatever the server says. SIGTERM first; SIGKILL after the grace period if the same
 * process is still there. Every step is reported (the server audits it)
 * and logged here.
 */
export function createEnforcer(options: EnforcerOptions) {
  const signal = options.signal ?? ((pid, name) => process.kill(pid, name));
  const sleep = options.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref()));
  const now = options.now ?? Date.now;
  const minUid = Math.max(1, options.minUid ?? DEFAULT_MIN_UID);
  const maxReadingAgeMs = options.maxReadingAgeMs ?? DEFAULT_MAX_READING_AGE_MS;
  const inFlight = new Set<number>();
  let stopped = false;

  function send(command: TerminateCommand, action: EnforcementAction, detail: string, own: Ownership | null): void {
    const report: EnforcementReport = {
      commandId: command.commandId,
      pid: command.pid,
      action,
      detail,
      login: own?.user ?? null,
      command: own?.command?.slice(0, MAX_COMMAND_CHARS) ?? null,
      at: new Date(now()).toISOString(),
    };
    options.log(`enforcement: pid ${command.pid} (${own?.user ?? "?"}) ${action}: ${detail}`);
    options.report(report);
  }

  /** Why the GPU reading does not back the request, or null when it does. */
  function notOnGpu(command: TerminateCommand): string | null {
    const reading = options.latestReading();
    if (!reading) return "this agent has no GPU reading yet";
    if (!(now() - Date.parse(reading.sampledAt) <= maxReadingAgeMs)) return "this agent's latest GPU reading is too old to act on";
    const gpu = command.gpuUuid.toLowerCase();
    const listed = reading.processes.find((process) => process.pid === command.pid && process.gpuUuid.toLowerCase() === gpu);
    if (!listed) return `pid ${command.pid} is not a compute process on ${command.gpuUuid} in this agent's latest reading`;
    if (!sameStart(listed.startedAt, command.startedAt)) return `pid ${command.pid} on ${command.gpuUuid} is not the process the request names (start time)`;
    return null;
  }

  /** Why this process must not be signalled, or null when it may. */
  function refusal(command: TerminateCommand, own: Ownership): string | null {
    if (!command.startedAt) return "the request gives no start time: a process it cannot tell apart is never signalled";
    if (!sameStart(command.startedAt, own.startedAt)) {
      return `pid ${command.pid} now belongs to another process (started ${own.startedAt ?? "at an unknown time"})`;
    }
    if (own.uid === null) return "its owner could not be read";
    if (own.uid === 0) return "it belongs to root";
    if (own.uid < minUid) return `it belongs to a system user (uid ${own.uid} < ${minUid})`;
    const onGpu = notOnGpu(command);
    if (onGpu) return onGpu;
    if (own.reservationId && own.reservationId === command.protect.reservationId) {
      return "it runs under the booking's own GPUDESK_RESERVATION";
    }
    if (own.user && command.protect.logins.includes(own.user)) return `it belongs to the booker's login ${own.user}`;
    return null;
  }

  /** Sends `name`; false when the process is already gone. */
  function deliver(pid: number, name: NodeJS.Signals): boolean {
    try {
      signal(pid, name);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
      throw error;
    }
  }

  async function handle(command: TerminateCommand): Promise<void> {
    if (!options.allow) {
      send(command, "refused", "this agent was started without --allow-enforcement", null);
      return;
    }
    if (inFlight.has(command.pid)) return;
    inFlight.add(command.pid);
    try {
      const own = await options.reader.readOwnership(command.pid);
      if (!own) return send(command, "gone", "the process had already exited", null);
      const why = refusal(command, own);
      if (why) return send(command, "refused", why, own);
      if (!deliver(command.pid, "SIGTERM")) return send(command, "gone", "the process had already exited", own);
      send(command, "sigterm", `${command.reason}; SIGKILL in ${command.killAfterSeconds} s if it is still there`, own);

      await sleep(command.killAfterSeconds * 1000);
      if (stopped) return;
      const after = await options.reader.readOwnership(command.pid);
      if (!after || !sameStart(after.startedAt, own.startedAt)) {
        return send(command, "exited", "the process ended after SIGTERM", own);
      }
      if (!deliver(command.pid, "SIGKILL")) return send(command, "exited", "the process ended after SIGTERM", own);
      send(command, "sigkill", `still there ${command.killAfterSeconds} s after SIGTERM`, own);
    } catch (error) {
      send(command, "refused", `could not signal it: ${error instanceof Error ? error.message : String(error)}`, null);
    } finally {
      inFlight.delete(command.pid);
    }
  }

  return {
    handle,
    stop(): void {
      stopped = true;
    },
  };
}

export type Enforcer = ReturnType<typeof createEnforcer>;
