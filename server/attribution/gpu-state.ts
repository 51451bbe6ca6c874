import type { GpuReconciliation, ProcessAttribution } from "@/lib/attribution";
import type { LiveBooking, LiveGpu } from "@/lib/live";
import type { Attribution } from "@/server/attribution/attribute-processes";

export interface GpuStateInput {
  gpu: Pick<LiveGpu, "eccErrorsUncorrected" | "processes">;
  /** The host's agent reports (a GPU of an offline host shows its last values). */
  online: boolean;
  /** The booking that holds the GPU now, if any. */
  booking: LiveBooking | null;
  attributions: ReadonlyMap<number, Attribution>;
}

/**
 * A GPU's state, from its processes, its booking and its host. A process is
 * an intruder on a booked GPU unless the evidence leads to the holder: a
 * process nobody can be named for is not proven to be the holder's.
 */
export function deriveGpuState({ gpu, online, booking, attributions }: GpuStateInput): GpuReconciliation {
  const seen = new Set<number>();
  const processes: ProcessAttribution[] = [];
  for (const process of gpu.processes) {
    if (seen.has(process.pid)) continue;
    seen.add(process.pid);
    const attribution = attributions.get(process.pid) ?? {
      pid: process.pid,
      person: null,
      reservationId: null,
      login: process.user,
      evidence: process.user ? { kind: "login" as const, value: process.user } : { kind: "none" as const, value: null },
    };
    const intruder = booking !== null && attribution.person?.id !== booking.holder.id;
    processes.push({ ...attribution, intruder });
  }

  const ecc = gpu.eccErrorsUncorrected;
  const problem = ecc !== null && ecc > 0 ? `${ecc} uncorrected ECC error${ecc === 1 ? "" : "s"}` : null;
  const state = !online
    ? "offline"
    : problem
      ? "error"
      : processes.some((process) => process.intruder)
        ? "conflict"
        : booking === null
          ? processes.length > 0
            ? "unbooked_use"
            : "free"
          : processes.length > 0
            ? "booked_in_use"
            : "booked_idle";

  return {
    state,
    reservationId: booking?.reservationId ?? null,
    holder: booking?.holder ?? null,
    processes,
    problem,
  };
}
