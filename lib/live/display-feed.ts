import type { DisplayFeed, DisplayGpu, DisplayHost } from "@/lib/live/live";
import { hostNameOrder, type ConnectionStatus } from "@/lib/live/live-fleet-state";
import { applyDisplayRows, type DisplayDeltaWire, type DisplaySnapshotWire, type SlotTable } from "@/lib/live/live-wire";

/**
 * A wall screen's copy of the display scope (lib/live/live.ts DisplayFeed), kept
 * as immutable data for React. Pure functions; the socket plumbing is in
 * display-feed-store.ts.
 */
export interface DisplayFeedState extends DisplayFeed {
  status: ConnectionStatus;
  /** False until the first snapshot arrived. */
  hasSnapshot: boolean;
  /** Browser clock (ms) when the last snapshot or delta arrived: the age of what is shown. */
  lastUpdateAt: number | null;
  /** Server clock minus browser clock (see LiveFleetState). */
  clockOffsetMs: number;
  /** Which GPU each slot of the deltas names; filled in place, replaced by each snapshot. */
  slots: SlotTable;
}

export const initialDisplayFeedState: DisplayFeedState = {
  status: "connecting",
  hasSnapshot: false,
  serverTime: new Date(0).toISOString(),
  simulated: false,
  hosts: [],
  gpus: {},
  openAlerts: null,
  lastUpdateAt: null,
  clockOffsetMs: 0,
  slots: {},
};

function byName(a: DisplayHost, b: DisplayHost): number {
  return hostNameOrder.compare(a.name, b.name);
}

function offset(serverTime: number, receivedAt: number, previous: number): number {
  return Number.isFinite(serverTime) ? serverTime - receivedAt : previous;
}

/** The snapshot is the truth: everything held before it is dropped. */
export function applyDisplaySnapshot(state: DisplayFeedState, wire: DisplaySnapshotWire, receivedAt: number): DisplayFeedState {
  const gpus: Record<string, DisplayGpu> = {};
  const slots: SlotTable = {};
  wire.gpus.forEach((gpu, i) => {
    gpus[gpu.uuid] = gpu;
    const slot = wire.slots[i];
    if (slot !== undefined) slots[slot] = gpu.uuid;
  });
  return {
    ...state,
    status: "live",
    hasSnapshot: true,
    serverTime: wire.serverTime,
    simulated: wire.simulated,
    hosts: [...wire.hosts].sort(byName),
    gpus,
    openAlerts: wire.openAlerts,
    lastUpdateAt: receivedAt,
    clockOffsetMs: offset(Date.parse(wire.serverTime), receivedAt, state.clockOffsetMs),
    slots,
  };
}

/** Merges a delta; one before the first snapshot is ignored (the snapshot that follows every connect brings it all). */
export function applyDisplayDelta(state: DisplayFeedState, wire: DisplayDeltaWire, receivedAt: number): DisplayFeedState {
  if (!state.hasSnapshot) return state;
  const removed = new Set(wire.x ?? []);
  const hostsById = new Map(state.hosts.filter((host) => !removed.has(host.id)).map((host) => [host.id, host]));
  for (const host of wire.h ?? []) if (!removed.has(host.id)) hostsById.set(host.id, host);
  const hosts = [...hostsById.values()].sort(byName);

  let gpus = state.gpus;
  if (wire.n && wire.n.length > 0) {
    gpus = { ...gpus };
    for (const [slot, gpu] of wire.n) {
      state.slots[slot] = gpu.uuid;
      gpus[gpu.uuid] = gpu;
    }
  }
  if (wire.r && wire.r.length > 0) gpus = applyDisplayRows(gpus, wire.r, state.slots);
  if (removed.size > 0 || (wire.h?.length ?? 0) > 0) {
    // Only GPUs a held host still lists: a removed host or a GPU off the bus must not linger.
    const listed = new Set(hosts.flatMap((host) => host.gpuUuids));
    gpus = Object.fromEntries(Object.entries(gpus).filter(([uuid]) => listed.has(uuid)));
  }
  return {
    ...state,
    serverTime: new Date(wire.t).toISOString(),
    hosts,
    gpus,
    openAlerts: wire.a === undefined ? state.openAlerts : wire.a,
    lastUpdateAt: receivedAt,
    clockOffsetMs: offset(wire.t, receivedAt, state.clockOffsetMs),
  };
}
