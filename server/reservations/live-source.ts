import type { LiveGpuSource } from "@/server/reservations/create-reservation";
import { runtime } from "@/server/runtime";

/** The running server's live fleet, for "any N GPUs with free memory"; none outside a server (scripts, tests). */
export function liveGpuSource(): LiveGpuSource | undefined {
  try {
    return runtime().fleet;
  } catch {
    return undefined;
  }
}
