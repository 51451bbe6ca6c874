import type { GpuReconciliation, GpuStatesAnswer } from "@/lib/attribution";
import type { FleetDelta, FleetSnapshot } from "@/lib/live";
import { getLiveSocket } from "@/lib/live-socket";

/**
 * Every GPU's server-side reconciliation (state, holder, who runs and by
 * what evidence) for the wall display, which needs them all at once for its
 * summary. `lib/use-gpu-states.ts` serves one GPU per card and keeps its
 * listeners for the tab's life; this one detaches when the display unmounts.
 * It listens on the tab's one socket; the fleet store opens and closes it.
 *
 * Empty until the server sends states (an older server sends none): the
 * display then derives the states from processes and bookings itself.
 */

let states: Record<string, GpuReconciliation> = {};
const listeners = new Set<() => void>();
let retainCount = 0;
let detach: (() => void) | null = null;

function publish(next: Record<string, GpuReconciliation>) {
  states = next;
  for (const listener of listeners) listener();
}

export function getDisplayGpuStates(): Record<string, GpuReconciliation> {
  return states;
}

const EMPTY: Record<string, GpuReconciliation> = {};
export function getServerDisplayGpuStates(): Record<string, GpuReconciliation> {
  return EMPTY;
}

export function subscribeDisplayGpuStates(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Listens while retained; returns the release. */
export function retainDisplayGpuStates(): () => void {
  retainCount += 1;
  if (!detach) {
    const socket = getLiveSocket();
    // Each snapshot replaces everything, so that GPUs gone since the last one do not linger.
    const onSnapshot = (snapshot: FleetSnapshot) => publish(snapshot.gpuStates ?? {});
    const onDelta = (delta: FleetDelta) => {
      if (delta.gpuStates && Object.keys(delta.gpuStates).length > 0) publish({ ...states, ...delta.gpuStates });
    };
    socket.on("fleet:snapshot", onSnapshot);
    socket.on("fleet:delta", onDelta);
    // Mounted on a socket whose snapshot already went by: ask.
    if (socket.connected) socket.emit("gpu:states", (answer: GpuStatesAnswer) => publish({ ...answer.states, ...states }));
    detach = () => {
      socket.off("fleet:snapshot", onSnapshot);
      socket.off("fleet:delta", onDelta);
    };
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    retainCount -= 1;
    if (retainCount === 0) {
      detach?.();
      detach = null;
      publish({});
    }
  };
}
