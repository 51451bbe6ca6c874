import type { GpuReconciliation, UnseenUse } from "@/lib/domain/attribution";
import { deriveGpuState, detectUnseenUse, siliconOf, type GpuState, type ProcessOwner } from "@/lib/domain/gpu-availability";
import type { LiveBooking, LiveGpu } from "@/lib/live/live";
import { bookingsOfGpu } from "@/lib/live/live-fleet-state";

/**
 * A GPU's state on a page: the server's reconciliation (the one rule,
 * applied with its attribution of every process); until that arrives, the
 * same rule on what the page knows, so that a busy GPU never shows free for
 * a moment. A host the page knows is silent wins: its values are old.
 */
export function gpuStateNow(gpu: LiveGpu, online: boolean, current: LiveBooking | null, reconciliation: GpuReconciliation | null | undefined): GpuState {
  if (!online) return "offline";
  if (reconciliation) return reconciliation.state;
  const booking = current ? { reservationId: current.reservationId, bookedBy: current.bookedBy } : null;
  // Without the server's attribution, a process owned by the booker's login is taken as the booker's,
  // so that a booker's own job does not flash "conflict" before the states arrive.
  const attributions = new Map<number, ProcessOwner>();
  for (const process of gpu.processes) {
    if (current && process.user === current.bookedBy.username) {
      attributions.set(process.pid, { pid: process.pid, runner: current.bookedBy, reservationId: null, login: process.user, evidence: { kind: "login", value: process.user } });
    }
  }
  return deriveGpuState({ gpu, online, booking, attributions }).state;
}

/**
 * A GPU's state now, from what a page holds: the bookings it follows (the
 * one that holds the GPU at `nowMs`, the server's clock, counts) and the
 * server's reconciliation of that GPU if it came. What the fleet view, the
 * schedule, the picker and the GPU page show.
 */
export function gpuStateOnPage(
  gpu: LiveGpu,
  online: boolean,
  bookings: LiveBooking[],
  reconciliation: GpuReconciliation | null | undefined,
  nowMs: number,
): GpuState {
  return gpuStateNow(gpu, online, bookingsOfGpu(bookings, siliconOf(gpu), nowMs).current, reconciliation);
}

/** Use with no visible process on a page: the server's word, else the same rule on the reading (lib/domain/gpu-availability.ts). */
export function unseenUseNow(gpu: LiveGpu, reconciliation: GpuReconciliation | null | undefined): UnseenUse | null {
  return reconciliation ? (reconciliation.unseenUse ?? null) : detectUnseenUse(gpu);
}
