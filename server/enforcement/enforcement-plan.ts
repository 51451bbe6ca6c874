import type { GpuReconciliation, ProcessAttribution } from "@/lib/domain/attribution";
import type { LiveGpu } from "@/lib/live/live";
import type { OpenAlertRef } from "@/server/tick/tick-view";

export interface HostEnforcement {
  graceSeconds: number;
  killAfterSeconds: number;
}

export interface PlannedTermination {
  hostId: string;
  alertId: string;
  gpuUuid: string;
  reservationId: string;
  bookedById: string;
  /** The booker's Unix login, which the agent refuses to touch. */
  bookerLogin: string | null;
  process: ProcessAttribution;
  startedAt: string | null;
  command: string | null;
  killAfterSeconds: number;
}

export interface PlanInput {
  nowMs: number;
  openAlerts: Iterable<OpenAlertRef>;
  /** Hosts whose admin turned "terminate intruders" on. */
  enforced: ReadonlyMap<string, HostEnforcement>;
  reconciliation: Readonly<Record<string, GpuReconciliation>>;
  gpus: ReadonlyMap<string, LiveGpu>;
  loginOf: (personId: string) => string | null;
}

/**
 * A process is terminated only when the evidence names someone other than
 * the booker: a known person, or (outside any container or job) a login
 * that is neither the booker's nor root. A process nobody can be named for
 * might be the booker's own container running as root; it stays an alert.
 */
export function isTerminable(process: ProcessAttribution, bookedById: string, bookerLogin: string | null): boolean {
  if (!process.intruder) return false;
  if (process.runner) return process.runner.id !== bookedById;
  return process.evidence.kind === "login" && process.login !== null && process.login !== "root" && process.login !== bookerLogin;
}

/**
 * Which processes to terminate now: those in conflict with an active
 * booking on a host with enforcement on, once the conflict alert has been
 * open for the host's grace period. Pure; the caller sends each once.
 */
export function planTerminations(input: PlanInput): PlannedTermination[] {
  const plan: PlannedTermination[] = [];
  for (const alert of input.openAlerts) {
    if (alert.kind !== "conflict" || !alert.hostId || !alert.gpuUuid || !alert.reservationId) continue;
    const setting = input.enforced.get(alert.hostId);
    if (!setting || input.nowMs < alert.openedAt + setting.graceSeconds * 1000) continue;
    const state = input.reconciliation[alert.gpuUuid];
    // The booking the alert is about must still hold the GPU.
    if (!state?.bookedBy || state.reservationId !== alert.reservationId) continue;
    const bookerLogin = input.loginOf(state.bookedBy.id);
    const gpu = input.gpus.get(alert.gpuUuid);
    for (const process of state.processes) {
      if (!isTerminable(process, state.bookedBy.id, bookerLogin)) continue;
      const info = gpu?.processes.find((candidate) => candidate.pid === process.pid);
      plan.push({
        hostId: alert.hostId,
        alertId: alert.id,
        gpuUuid: alert.gpuUuid,
        reservationId: alert.reservationId,
        bookedById: state.bookedBy.id,
        bookerLogin,
        process,
        startedAt: info?.startedAt ?? null,
        command: info?.command ?? info?.name ?? null,
        killAfterSeconds: setting.killAfterSeconds,
      });
    }
  }
  return plan;
}

/**
 * Work that was already running when its GPU was booked (a booking made
 * over busy GPUs, `allowBusy`) is never a target because of that booking:
 * the booker chose to share, and the other person was never asked. So a
 * process that started before the booking was made is spared; only what
 * starts on the GPU after it was booked can be terminated. An unknown start
 * time spares nothing here (the agent refuses such a request anyway).
 */
export function startedBeforeBooking(startedAt: string | null, bookedAt: Date | null): boolean {
  if (!startedAt || !bookedAt) return false;
  const started = Date.parse(startedAt);
  return Number.isFinite(started) && started < bookedAt.getTime();
}
