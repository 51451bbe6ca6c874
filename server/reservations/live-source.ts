import { alertsRuntime } from "@/server/alerts/alerts-runtime";
import type { LiveGpuSource } from "@/server/reservations/create-reservation";
import { runtime } from "@/server/runtime";

/** The running server's live fleet and its reconciliation, for booking checks; none outside a server (scripts, tests). */
export function liveGpuSource(): LiveGpuSource | undefined {
  try {
    const fleet = runtime().fleet;
    return { current: () => fleet.current(), gpuStates: () => alertsRuntime()?.gpuStates() ?? {} };
  } catch {
    return undefined;
  }
}
