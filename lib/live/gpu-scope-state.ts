import type { GpuReconciliation } from "@/lib/domain/attribution";
import { HISTORY_POINTS, type GpuPoint, type LiveBooking, type LiveGpu, type LiveHost } from "@/lib/live/live";
import { appendPoints, type ConnectionStatus } from "@/lib/live/live-fleet-state";
import { deltaPointsOf } from "@/lib/live/live-points";
import { expandFleetDelta, pointsOfColumnSet, type GpuDeltaWire, type GpuSnapshotWire, type SlotTable } from "@/lib/live/live-wire";

/**
 * What the GPU page holds of the one GPU it watches (the GPU scope,
 * docs/live-protocol.md): the GPU whole, its host, its last 15 minutes, its
 * state and its bookings. Pure functions; the socket is in use-gpu-scope.ts.
 */
export interface GpuScopeState {
  uuid: string;
  status: ConnectionStatus;
  /** False until the first snapshot: the page shows a skeleton, not "no such GPU". */
  hasSnapshot: boolean;
  simulated: boolean;
  /** Null when the fleet has no such GPU (yet, or any more). */
  gpu: LiveGpu | null;
  host: LiveHost | null;
  /** Oldest first, at most 15 minutes (HISTORY_POINTS). */
  points: GpuPoint[];
  reconciliation: GpuReconciliation | null;
  /** Active and upcoming bookings of this GPU. */
  bookings: LiveBooking[];
  /** Browser clock (ms) of the last snapshot or delta. */
  lastUpdateAt: number | null;
  /** Server clock minus browser clock. */
  clockOffsetMs: number;
  slots: SlotTable;
}

export function initialGpuScopeState(uuid: string): GpuScopeState {
  return {
    uuid,
    status: "connecting",
    hasSnapshot: false,
    simulated: false,
    gpu: null,
    host: null,
    points: [],
    reconciliation: null,
    bookings: [],
    lastUpdateAt: null,
    clockOffsetMs: 0,
    slots: {},
  };
}

function offsetOf(serverMs: number, receivedAt: number, previous: number): number {
  return Number.isFinite(serverMs) ? serverMs - receivedAt : previous;
}

/** A snapshot is the truth: history and all are replaced (a re-watch after a reconnect leaves no gap and no duplicate). */
export function applyGpuSnapshot(state: GpuScopeState, wire: GpuSnapshotWire, receivedAt: number): GpuScopeState {
  if (wire.u !== state.uuid) return state;
  const serverMs = Date.parse(wire.serverTime);
  return {
    ...state,
    status: "live",
    hasSnapshot: true,
    simulated: wire.simulated,
    gpu: wire.gpu,
    host: wire.host,
    points: appendPoints([], pointsOfColumnSet(wire.history, serverMs), HISTORY_POINTS),
    reconciliation: wire.state,
    bookings: wire.bookings,
    lastUpdateAt: receivedAt,
    clockOffsetMs: offsetOf(serverMs, receivedAt, state.clockOffsetMs),
    slots: wire.slot === null || !wire.gpu ? {} : { [wire.slot]: wire.u },
  };
}

/** A delta of the watched GPU, merged; one of another GPU, or before the snapshot, changes nothing. */
export function applyGpuDelta(state: GpuScopeState, wire: GpuDeltaWire, receivedAt: number): GpuScopeState {
  if (wire.u !== state.uuid || !state.hasSnapshot) return state;
  const { uuid } = state;
  const slots = { ...state.slots };
  const delta = expandFleetDelta(wire, state.gpu ? { [uuid]: state.gpu } : {}, slots);
  const removed = state.host !== null && delta.removedHostIds.includes(state.host.id);
  const gpu = removed ? null : (delta.gpus.find((entry) => entry.uuid === uuid) ?? state.gpu);
  const hostId = gpu?.hostId ?? state.host?.id;
  const host = removed ? null : (delta.hosts.find((entry) => entry.id === hostId) ?? state.host);
  // A host that no longer lists the GPU: it fell off the bus.
  const gone = removed || (host !== null && !host.gpuUuids.includes(uuid));
  return {
    ...state,
    gpu: gone ? null : gpu,
    host,
    points: appendPoints(state.points, deltaPointsOf(delta, uuid), HISTORY_POINTS),
    reconciliation: delta.gpuStates?.[uuid] ?? state.reconciliation,
    bookings: wire.b ?? state.bookings,
    lastUpdateAt: receivedAt,
    clockOffsetMs: offsetOf(wire.t, receivedAt, state.clockOffsetMs),
    slots,
  };
}

export function withGpuScopeStatus(state: GpuScopeState, status: ConnectionStatus): GpuScopeState {
  return state.status === status ? state : { ...state, status };
}
