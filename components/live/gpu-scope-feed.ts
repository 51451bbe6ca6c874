import { applyGpuDelta, applyGpuSnapshot, initialGpuScopeState, withGpuScopeStatus, type GpuScopeState } from "@/lib/live/gpu-scope-state";
import type { GpuDeltaWire, GpuSnapshotWire } from "@/lib/live/live-wire";
import { getLiveSocket, retainLiveSocket } from "@/components/live/live-socket";

const WATCH_TIMEOUT_MS = 10_000;

/**
 * Follows one GPU's scope of `/live` on the tab's socket (the GPU page,
 * through useGpuScope): holds the socket open, watches the GPU on every
 * (re)connect (each watch brings a fresh snapshot: the truth, history
 * included), merges its deltas and tells `publish` each new state, starting
 * from the GPU's initial one. The stop unwatches and lets the socket go
 * (it closes when no one else holds it). Browser-only, like the socket.
 */
export function followGpuScope(uuid: string, publish: (state: GpuScopeState) => void): () => void {
  const socket = getLiveSocket();
  const release = retainLiveSocket();
  let state = initialGpuScopeState(uuid);
  let current = true;
  const update = (next: (held: GpuScopeState) => GpuScopeState) => {
    if (!current) return;
    const changed = next(state);
    if (changed === state) return;
    state = changed;
    publish(state);
  };

  const watch = () => {
    socket
      .timeout(WATCH_TIMEOUT_MS)
      .emitWithAck("gpu:watch", uuid)
      .then((answer) => {
        // Refused (too many watched on this socket, or not a member): the page cannot be live.
        if (!answer.ok) update((held) => withGpuScopeStatus(held, "disconnected"));
      })
      .catch(() => undefined);
  };
  const onSnapshot = (wire: GpuSnapshotWire) => update((held) => applyGpuSnapshot(held, wire, Date.now()));
  const onDelta = (wire: GpuDeltaWire) => update((held) => applyGpuDelta(held, wire, Date.now()));
  const onDisconnect = () => update((held) => withGpuScopeStatus(held, socket.active ? "reconnecting" : "disconnected"));
  const onConnectError = () => {
    // `active` is false when a middleware refused us; socket.io will not retry then.
    if (!socket.active) update((held) => withGpuScopeStatus(held, "disconnected"));
    else update((held) => (held.hasSnapshot ? withGpuScopeStatus(held, "reconnecting") : held));
  };

  socket.on("connect", watch);
  socket.on("gpu:snapshot", onSnapshot);
  socket.on("gpu:delta", onDelta);
  socket.on("disconnect", onDisconnect);
  socket.on("connect_error", onConnectError);
  if (socket.connected) watch();
  return () => {
    current = false;
    socket.off("connect", watch);
    socket.off("gpu:snapshot", onSnapshot);
    socket.off("gpu:delta", onDelta);
    socket.off("disconnect", onDisconnect);
    socket.off("connect_error", onConnectError);
    if (socket.connected) socket.emit("gpu:unwatch", uuid);
    release();
  };
}
