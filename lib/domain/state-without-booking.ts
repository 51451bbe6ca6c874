import type { GpuReconciliation } from "@/lib/domain/attribution";
import { deriveGpuState, type StateReading } from "@/lib/domain/gpu-availability";

/**
 * A GPU's state by the one rule (lib/domain/gpu-availability.ts) leaving its
 * booking aside: what runs there now and whose it is, for the questions a
 * booking asks before it exists (is it free, who would I book over, is
 * someone using it without a booking). The reading's processes are the
 * truth of what runs now; `known`, the reconciler's last word on the GPU,
 * says whose they are (a pid it does not know is known by its login only).
 * Isomorphic.
 */
export function stateWithoutBooking(reading: StateReading, online: boolean, known?: Pick<GpuReconciliation, "processes"> | null): GpuReconciliation {
  const attributions = new Map((known?.processes ?? []).map((process) => [process.pid, process]));
  return deriveGpuState({ gpu: reading, online, booking: null, attributions });
}
