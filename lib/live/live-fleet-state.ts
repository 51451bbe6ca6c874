import { bookingTakesUnit, type SiliconUnit } from "@/lib/domain/gpu-availability";
import {
  SPARKLINE_POINTS,
  type BookingsUpdate,
  type FleetDelta,
  type FleetSnapshot,
  type GpuPoint,
  type LiveBooking,
  type LiveGpu,
  type LiveHost,
} from "@/lib/live/live";
import { deltaPointsOf, pointsOfColumns, sampleTime } from "@/lib/live/live-points";
import { expandFleetDelta, type FleetDeltaWire, type FleetSnapshotWire, type SlotTable } from "@/lib/live/live-wire";

/**
 * The browser's copy of the live fleet, kept as plain immutable data so that
 * React can compare by reference. Pure functions only: the socket plumbing is
 * in `live-fleet-store.ts`.
 */

export type ConnectionStatus = "connecting" | "live" | "reconnecting" | "disconnected";

export interface LiveFleetState {
  status: ConnectionStatus;
  /** False until the first snapshot arrived: the page shows a skeleton, not an empty fleet. */
  hasSnapshot: boolean;
  simulated: boolean;
  /** Sorted by name, so that sections do not jump when a host changes. */
  hosts: LiveHost[];
  gpus: Record<string, LiveGpu>;
  /** Utilization history per GPU UUID for the sparklines, oldest first. */
  sparklines: Record<string, GpuPoint[]>;
  /** Active and upcoming bookings, soonest first; whether each is active follows from the clock. */
  bookings: LiveBooking[];
  /** Browser clock (ms) when the last snapshot or delta arrived: the age of what is shown. */
  lastUpdateAt: number | null;
  /**
   * Server clock minus browser clock. "Last seen 3 s ago" compares the
   * server's timestamps with the server's now, or a skewed laptop clock
   * would show hosts seen "in 2 min".
   */
  clockOffsetMs: number;
  /**
   * Which GPU each slot of the wire deltas names (lib/live/live-wire.ts). Not
   * drawn from: filled in place as deltas bring new GPUs, replaced by each snapshot.
   */
  slots: SlotTable;
}

export const initialLiveFleetState: LiveFleetState = {
  status: "connecting",
  hasSnapshot: false,
  simulated: false,
  hosts: [],
  gpus: {},
  sparklines: {},
  bookings: [],
  lastUpdateAt: null,
  clockOffsetMs: 0,
  slots: {},
};

/** One collator for every comparison: `localeCompare` with options builds one per call (most of a delta's cost at 125 hosts). */
export const hostNameOrder = new Intl.Collator(undefined, { numeric: true });

function byName(a: LiveHost, b: LiveHost): number {
  return hostNameOrder.compare(a.name, b.name);
}

function clockOffset(serverTime: string, receivedAt: number, previous: number): number {
  const server = Date.parse(serverTime);
  return Number.isFinite(server) ? server - receivedAt : previous;
}

/**
 * Appends points newer than the last one held and keeps the newest `cap`.
 * Points at or before the last held time are dropped: a delta that races a
 * history answer must not draw a line backwards.
 */
export function appendPoints(existing: GpuPoint[], incoming: GpuPoint[], cap: number): GpuPoint[] {
  if (incoming.length === 0) return existing;
  const lastT = existing.length > 0 ? existing[existing.length - 1].t : Number.NEGATIVE_INFINITY;
  const fresh = incoming.filter((point) => point.t > lastT);
  if (fresh.length === 0) return existing;
  // One array, built once: this runs for every GPU of every delta.
  const keep = Math.min(existing.length, Math.max(0, cap - fresh.length));
  const merged = new Array<GpuPoint>(keep + Math.min(fresh.length, cap));
  let at = 0;
  for (let i = existing.length - keep; i < existing.length; i += 1) merged[at++] = existing[i];
  for (let i = fresh.length - (merged.length - keep); i < fresh.length; i += 1) merged[at++] = fresh[i];
  return merged;
}

/** The snapshot is the truth: everything held before it is dropped. */
export function applySnapshot(state: LiveFleetState, snapshot: FleetSnapshot, receivedAt: number): LiveFleetState {
  const gpus: Record<string, LiveGpu> = {};
  for (const gpu of snapshot.gpus) gpus[gpu.uuid] = gpu;
  const sparklines: Record<string, GpuPoint[]> = {};
  for (const [uuid, columns] of Object.entries(snapshot.sparklines)) {
    sparklines[uuid] = appendPoints([], pointsOfColumns(columns), SPARKLINE_POINTS);
  }
  return {
    ...state,
    status: "live",
    hasSnapshot: true,
    simulated: snapshot.simulated,
    hosts: [...snapshot.hosts].sort(byName),
    gpus,
    sparklines,
    bookings: snapshot.bookings ?? [],
    lastUpdateAt: receivedAt,
    clockOffsetMs: clockOffset(snapshot.serverTime, receivedAt, state.clockOffsetMs),
  };
}

/** A snapshot as it comes over the wire: the snapshot, and the slot of each GPU. */
export function applySnapshotWire(state: LiveFleetState, wire: FleetSnapshotWire, receivedAt: number): LiveFleetState {
  const slots: SlotTable = {};
  wire.gpus.forEach((gpu, i) => {
    const slot = wire.slots[i];
    if (slot !== undefined) slots[slot] = gpu.uuid;
  });
  return { ...applySnapshot(state, wire, receivedAt), slots };
}

/**
 * A wire delta: expanded against the GPUs held (lib/live/live-wire.ts), then
 * merged. Returns the expanded delta too, for the listeners that want the
 * readings themselves (the GPU page's charts). Before the first snapshot
 * there is nothing to expand against: the state stays, the delta is null.
 */
export function applyDeltaWire(state: LiveFleetState, wire: FleetDeltaWire, receivedAt: number): { state: LiveFleetState; delta: FleetDelta | null } {
  if (!state.hasSnapshot) return { state, delta: null };
  const delta = expandFleetDelta(wire, state.gpus, state.slots);
  return { state: applyDelta(state, delta, receivedAt), delta };
}

/** The server sends the whole list whenever it changes: it replaces what was held. */
export function applyBookings(state: LiveFleetState, update: BookingsUpdate, receivedAt: number): LiveFleetState {
  if (!state.hasSnapshot) return state;
  return {
    ...state,
    bookings: update.bookings,
    clockOffsetMs: clockOffset(update.serverTime, receivedAt, state.clockOffsetMs),
  };
}

/**
 * Who holds a unit at `nowMs` (server clock), and the next booking after
 * that: a booking of the unit, of its GPU or of one of its slices
 * (`bookingTakesUnit`), whatever the layout was when it was made.
 */
export function bookingsOfGpu(
  bookings: LiveBooking[],
  unit: SiliconUnit,
  nowMs: number,
): { current: LiveBooking | null; next: LiveBooking | null } {
  let current: LiveBooking | null = null;
  let next: LiveBooking | null = null;
  for (const booking of bookings) {
    if (!bookingTakesUnit(booking, unit)) continue;
    const start = Date.parse(booking.startsAt);
    const end = Date.parse(booking.endsAt);
    if (start <= nowMs && nowMs < end) current = booking;
    else if (start > nowMs && (!next || start < Date.parse(next.startsAt))) next = booking;
  }
  return { current, next };
}

/**
 * The server sends a host only when something shown of it changed, not for
 * each sample: its "last seen" moves to the newest reading of its GPUs in
 * the delta (the server's lastSeenAt is that same sample time). Never moves
 * it back, and replaces a host only when it does move.
 */
function advanceLastSeen(hostsById: Map<string, LiveHost>, gpus: LiveGpu[]): void {
  const newest = new Map<string, number>();
  for (const gpu of gpus) {
    const t = sampleTime(gpu.sampledAt);
    if (Number.isFinite(t) && t > (newest.get(gpu.hostId) ?? Number.NEGATIVE_INFINITY)) newest.set(gpu.hostId, t);
  }
  for (const [hostId, t] of newest) {
    const host = hostsById.get(hostId);
    if (!host) continue;
    const held = host.lastSeenAt === null ? Number.NaN : Date.parse(host.lastSeenAt);
    if (!(t <= held)) hostsById.set(hostId, { ...host, lastSeenAt: new Date(t).toISOString() });
  }
}

/**
 * The `gpus` and `sparklines` records that applyDelta made and alone holds:
 * their GPUs are those their hosts list, each with a sparkline and no other.
 * The usual delta (readings of GPUs already held, no host change) updates
 * them in place, so that it costs what it brings and not the whole fleet:
 * copying 4,000-entry records per delta was most of a delta's cost in the
 * page. Successive states share them; what a component compares is each
 * GPU's entry and sparkline, which are replaced, never changed. A record
 * made elsewhere (a snapshot, a test's state) is copied once, by the full path.
 */
const ownedRecords = new WeakSet<object>();

/** The points a delta brings for a GPU it may have no entry for (rare: a replayed buffer comes with its GPU's entry). */
function replayedOnly(delta: FleetDelta): string[] {
  const replayed = Object.keys(delta.points);
  if (replayed.length === 0) return replayed;
  const brought = new Set(delta.gpus.map((gpu) => gpu.uuid));
  return replayed.filter((uuid) => !brought.has(uuid));
}

/** Readings of GPUs already held, written into the held records. */
function mergeInPlace(state: LiveFleetState, delta: FleetDelta): void {
  const { gpus, sparklines } = state;
  for (const gpu of delta.gpus) {
    gpus[gpu.uuid] = gpu;
    sparklines[gpu.uuid] = appendPoints(sparklines[gpu.uuid] ?? [], deltaPointsOf(delta, gpu.uuid, gpu), SPARKLINE_POINTS);
  }
  for (const uuid of replayedOnly(delta)) {
    if (gpus[uuid] !== undefined) sparklines[uuid] = appendPoints(sparklines[uuid] ?? [], deltaPointsOf(delta, uuid, undefined), SPARKLINE_POINTS);
  }
}

/**
 * New records for a delta that may change the set of GPUs: the GPUs no
 * current host lists are dropped (a removed host, a GPU that fell off the
 * bus must not linger in the state), each GPU left keeps or moves its sparkline.
 */
function rebuiltRecords(state: LiveFleetState, delta: FleetDelta, hosts: LiveHost[]): Pick<LiveFleetState, "gpus" | "sparklines"> {
  const gpus: Record<string, LiveGpu> = { ...state.gpus };
  for (const gpu of delta.gpus) gpus[gpu.uuid] = gpu;
  const listed = new Set(hosts.flatMap((host) => host.gpuUuids));
  for (const uuid of Object.keys(gpus)) {
    if (!listed.has(uuid)) delete gpus[uuid];
  }
  const updated = new Map(delta.gpus.map((gpu) => [gpu.uuid, gpu]));
  const sparklines: Record<string, GpuPoint[]> = {};
  for (const uuid of Object.keys(gpus)) {
    const held = state.sparklines[uuid] ?? [];
    const gpu = updated.get(uuid);
    sparklines[uuid] = gpu || delta.points[uuid] ? appendPoints(held, deltaPointsOf(delta, uuid, gpu), SPARKLINE_POINTS) : held;
  }
  ownedRecords.add(gpus);
  ownedRecords.add(sparklines);
  return { gpus, sparklines };
}

/**
 * Merges a delta: hosts by id, GPUs by UUID, sparkline points appended and
 * capped. A delta before the first snapshot is ignored: it cannot be merged
 * into nothing, and the snapshot that follows every connect brings it all.
 * The usual delta costs what it brings: the records are updated in place
 * (see ownedRecords), so the state given is not to be read as it was.
 */
export function applyDelta(state: LiveFleetState, delta: FleetDelta, receivedAt: number): LiveFleetState {
  if (!state.hasSnapshot) return state;

  const removed = new Set(delta.removedHostIds);
  // Per host, not per GPU: a host carries 1 to 8 GPUs.
  const hostsById = new Map(state.hosts.filter((host) => !removed.has(host.id)).map((host) => [host.id, host]));
  for (const host of delta.hosts) {
    if (!removed.has(host.id)) hostsById.set(host.id, host);
  }
  advanceLastSeen(hostsById, delta.gpus);
  // Held hosts are sorted already; readings alone move only their "last seen".
  const reordered = removed.size > 0 || delta.hosts.length > 0;
  const hosts = reordered ? [...hostsById.values()].sort(byName) : state.hosts.map((host) => hostsById.get(host.id) ?? host);

  const inPlace =
    ownedRecords.has(state.gpus) && ownedRecords.has(state.sparklines) && !reordered && delta.gpus.every((gpu) => state.gpus[gpu.uuid] !== undefined);
  let records: Pick<LiveFleetState, "gpus" | "sparklines">;
  if (inPlace) {
    mergeInPlace(state, delta);
    records = { gpus: state.gpus, sparklines: state.sparklines };
  } else {
    records = rebuiltRecords(state, delta, hosts);
  }
  return {
    ...state,
    hosts,
    ...records,
    lastUpdateAt: receivedAt,
    clockOffsetMs: clockOffset(delta.serverTime, receivedAt, state.clockOffsetMs),
  };
}

export function withStatus(state: LiveFleetState, status: ConnectionStatus): LiveFleetState {
  return state.status === status ? state : { ...state, status };
}

/** The GPUs of one host in nvidia-smi index order; UUIDs without a sample yet are skipped. */
export function gpusOfHost(state: LiveFleetState, host: LiveHost): LiveGpu[] {
  return host.gpuUuids.map((uuid) => state.gpus[uuid]).filter((gpu): gpu is LiveGpu => gpu !== undefined);
}

export function findHost(state: LiveFleetState, hostId: string): LiveHost | undefined {
  return state.hosts.find((host) => host.id === hostId);
}

/**
 * Whether a page says "Simulated fleet": the server runs the simulated
 * fleet and a simulated host is still on the page. Choosing the lab removes
 * the simulated hosts from the live fleet, so an open page drops the badge
 * then, without a reload (a new snapshot says it too).
 */
export function showsSimulated(fleet: { simulated: boolean; hosts: readonly { simulated: boolean }[] }): boolean {
  return fleet.simulated && fleet.hosts.some((host) => host.simulated);
}
