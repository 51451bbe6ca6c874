import type { LiveGpuSource } from "@/server/bookings/placement/gpu-in-use";
import { runningServer } from "@/server/runtime/runtime";

/** The running server's live fleet and the tick's GPU states, for booking checks; none outside a server (scripts, tests). */
export function liveGpuSource(): LiveGpuSource | undefined {
  const server = runningServer();
  if (!server) return undefined;
  return { current: () => server.fleet.current(), gpuStates: () => server.tick?.gpuStates() ?? {} };
}
