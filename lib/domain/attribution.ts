import type { PersonRef } from "@/lib/domain/booking-types";
import { slurmStateWords, type SlurmHoldNow } from "@/lib/domain/slurm";

/**
 * Who really runs on a GPU, and how that compares with its booking: the
 * shapes the server derives every tick and the pages show. Isomorphic.
 */

/**
 * A GPU's state, derived every tick from its processes, its booking and its
 * host (first match wins, in this order): offline · error · conflict ·
 * in use without a booking · booked and in use by the booker · booked and
 * idle · free.
 */
export const GPU_STATES = ["free", "booked_idle", "booked_in_use", "unbooked_use", "conflict", "error", "offline", "partitioned"] as const;
export type GpuState = (typeof GPU_STATES)[number];

export const GPU_STATE_LABELS: Record<GpuState, string> = {
  free: "Free",
  booked_idle: "Booked, idle",
  booked_in_use: "Booked, in use",
  unbooked_use: "In use, not booked",
  conflict: "Conflict",
  error: "Error",
  offline: "Offline",
  partitioned: "Split into MIG slices",
};

/**
 * A unit's state in words, for every surface that names it (the badge, the
 * fleet's cells, the CLI's STATE column): the state's label, except that a
 * unit Slurm holds says so, "Held by Slurm (job 42 of bob)" or "Slurm
 * reservation maint until …" (with `when`), where the state stays
 * `unbooked_use` for scripts and metrics.
 */
export function gpuStateLabel(reconciliation: { state: GpuState; slurm?: SlurmHoldNow | null }, when?: (iso: string) => string): string {
  return (reconciliation.state === "unbooked_use" ? slurmStateWords(reconciliation.slurm, when) : null) ?? GPU_STATE_LABELS[reconciliation.state];
}

/** What a process was attributed by, best evidence first. */
export type EvidenceKind = "reservation" | "slurm" | "container" | "pod" | "login" | "none";

export interface AttributionEvidence {
  kind: EvidenceKind;
  /** The booking id, job id, container id, pod uid or login; null for "none". */
  value: string | null;
}

export interface ProcessAttribution {
  pid: number;
  /** The gpudesk person the evidence leads to; null when it leads to nobody known. */
  runner: PersonRef | null;
  /** The booking it runs under: its own GPUDESK_RESERVATION, or its job's. */
  reservationId: string | null;
  /** Login of the process owner as the agent read it (may be a uid as text). */
  login: string | null;
  evidence: AttributionEvidence;
  /**
   * The booking its GPUDESK_RESERVATION names without that booking's proof:
   * a false claim, so it was attributed by its other evidence. Absent otherwise.
   */
  falseClaim?: string;
  /** It runs on a GPU booked by someone else (or by nobody we can tell). */
  intruder: boolean;
}

export interface GpuReconciliation {
  state: GpuState;
  /** The booking that holds the GPU now. */
  reservationId: string | null;
  /**
   * That booking's person (bookedBy). Who really runs there is in
   * `processes` (each one's `person`); the field keeps its name on the wire.
   */
  bookedBy: PersonRef | null;
  /** One entry per process on the GPU, in the order the agent listed them. */
  processes: ProcessAttribution[];
  /** Why the state is "error" (e.g. "2 uncorrected ECC errors"); null otherwise. */
  problem: string | null;
  /**
   * The GPU holds memory (or holds some and is busy) while no process is
   * visible on it: a job in another container or PID namespace, or a vGPU
   * guest. It makes the GPU "unbooked_use" (not free) or "booked_in_use";
   * absent when processes are listed or the GPU is idle. Coarse on purpose
   * (lib/domain/gpu-availability.ts, `unseenUse`), so that it does not change with
   * every reading; surfaces show the reading's own figures beside it.
   * Absent from a server older than this field.
   */
  unseenUse?: UnseenUse | null;
  /**
   * Slurm holds the unit now: a job of its own or a reservation gpudesk did
   * not make (the unit is "unbooked_use", never free), or the booker's job
   * under the booking's reservation ("booked_in_use", its job id shown).
   * Absent where Slurm holds nothing, and off Slurm nodes.
   */
  slurm?: SlurmHoldNow;
}

/**
 * Use on a GPU without a visible process: the memory held, floored to whole
 * GiB (to 256 MiB below 1 GiB). No utilization: it moves every second, and
 * the reconciliation travels in the live deltas each time it changes.
 */
export interface UnseenUse {
  memoryMiB: number;
}

function shortId(value: string, keep: number): string {
  return value.length > keep + 1 ? `${value.slice(0, keep)}…` : value;
}

/** "via container 3f2a1b9c…", "via Slurm job 4711", "via login alice": the evidence in words. */
export function evidenceLabel(evidence: AttributionEvidence): string {
  const value = evidence.value ?? "";
  switch (evidence.kind) {
    case "reservation":
      return `via reservation ${shortId(value, 8)}`;
    case "slurm":
      return `via Slurm job ${value}`;
    case "container":
      return `via container ${shortId(value, 8)}`;
    case "pod":
      return `via pod ${shortId(value.replace(/^pod:/, ""), 8)}`;
    case "login":
      return `via login ${value}`;
    case "none":
      return "owner unknown";
  }
}

/** The evidence in words, with a false claim on a booking when there is one: "via login bob · claims reservation abc… without its proof". */
export function processEvidenceLabel(process: Pick<ProcessAttribution, "evidence" | "falseClaim">): string {
  const via = evidenceLabel(process.evidence);
  return process.falseClaim ? `${via} · claims reservation ${shortId(process.falseClaim, 8)} without its proof` : via;
}

/** Who a process is, for people: the gpudesk name, else the login, else "unknown". */
export function runnerName(process: Pick<ProcessAttribution, "runner" | "login">): string {
  return process.runner?.username ?? process.login ?? "unknown";
}

/** The answer to `gpu:states` on /live: every GPU's reconciliation, for a client that missed the snapshot. */
export interface GpuStatesAnswer {
  serverTime: string;
  states: Record<string, GpuReconciliation>;
}
