import type { GpuReconciliation } from "@/lib/domain/attribution";
import { bookingTakesUnit, siliconOf, type SiliconUnit } from "@/lib/domain/gpu-availability";
import type { FleetDelta, GpuHistory, LiveBooking, LiveGpu, LiveHost } from "@/lib/live/live";
import { LIVE_FORMAT_VERSION, pointColumns, type GpuDeltaWire, type GpuSnapshotWire } from "@/lib/live/live-wire";
import { MemberEncoder, type SlotRegistry } from "@/server/live/member-encoder";

/** How many GPUs one socket may watch at once: a page shows one; a few tabs' worth is plenty, and each costs a room. */
export const MAX_WATCHED_GPUS = 4;

/** The socket.io room of one GPU's watchers. */
export function gpuRoom(uuid: string): string {
  return `gpu:${uuid}`;
}

/** What the GPU scope reads of the server's live state. */
export interface GpuScopeSource {
  gpu(uuid: string): { gpu: LiveGpu; host: LiveHost | null } | null;
  history(uuid: string): GpuHistory | null;
  gpuState(uuid: string): GpuReconciliation | null;
  bookings(): LiveBooking[];
  simulated: boolean;
}

interface Room {
  /** Sockets of this instance that watch the GPU. */
  sockets: Set<string>;
  /** Those of them waiting for their snapshot (at the next flush). */
  awaiting: Set<string>;
  /** The member encoder, kept for this one GPU: rows say what changed since the room's last delta. */
  encoder: MemberEncoder;
  /** The GPU's bookings as last sent, as JSON (compared only after the booking feed said something changed). */
  bookingsKey: string;
  /** The GPU's host as last seen: a delta that removes it must still reach the room. */
  hostId: string | null;
}

/**
 * The active and upcoming bookings that hold a unit, by the one rule every
 * surface uses: a slice's page lists a booking of its whole GPU too, and a
 * whole GPU's page the bookings of its former slices.
 */
function bookingsOf(bookings: LiveBooking[], unit: SiliconUnit): LiveBooking[] {
  return bookings.filter((booking) => bookingTakesUnit(booking, unit));
}

/**
 * A drained delta indexed by GPU, built once per flush: each room takes its
 * GPU's part by lookup instead of filtering the fleet's whole list (50
 * rooms × 1,000 GPUs at every flush with readings).
 */
interface DrainedIndex {
  delta: FleetDelta;
  gpus: Map<string, LiveGpu[]>;
  /** Positions in `delta.hosts`, by host id and by each GPU a host lists. */
  hostById: Map<string, number>;
  hostsByGpu: Map<string, number[]>;
  removedHostIds: Set<string>;
}

function indexDrained(delta: FleetDelta): DrainedIndex {
  const gpus = new Map<string, LiveGpu[]>();
  for (const gpu of delta.gpus) {
    const list = gpus.get(gpu.uuid);
    if (list) list.push(gpu);
    else gpus.set(gpu.uuid, [gpu]);
  }
  const hostById = new Map<string, number>();
  const hostsByGpu = new Map<string, number[]>();
  delta.hosts.forEach((host, position) => {
    if (!hostById.has(host.id)) hostById.set(host.id, position);
    for (const uuid of host.gpuUuids) {
      const list = hostsByGpu.get(uuid);
      if (!list) hostsByGpu.set(uuid, [position]);
      else if (list.at(-1) !== position) list.push(position);
    }
  });
  return { delta, gpus, hostById, hostsByGpu, removedHostIds: new Set(delta.removedHostIds) };
}

/** A drained delta reduced to one GPU; null when it says nothing of it. */
function deltaOf(drained: DrainedIndex, uuid: string, hostId: string | null): FleetDelta | null {
  const { delta } = drained;
  const gpus = drained.gpus.get(uuid) ?? [];
  const host = hostId ?? gpus[0]?.hostId ?? null;
  // The host's entry and any that lists the GPU, each once, in the delta's order.
  const positions = new Set(drained.hostsByGpu.get(uuid));
  const byId = host === null ? undefined : drained.hostById.get(host);
  if (byId !== undefined) positions.add(byId);
  const hosts = [...positions].sort((x, y) => x - y).map((position) => delta.hosts[position]!);
  const removedHostIds = host !== null && drained.removedHostIds.has(host) ? [host] : [];
  const points = delta.points[uuid];
  const state = delta.gpuStates?.[uuid];
  if (gpus.length === 0 && hosts.length === 0 && removedHostIds.length === 0 && !points && !state) return null;
  return {
    serverTime: delta.serverTime,
    hosts,
    gpus,
    points: points ? { [uuid]: points } : {},
    removedHostIds,
    ...(state ? { gpuStates: { [uuid]: state } } : {}),
  };
}

/**
 * The GPU scope: the GPU detail page watches one GPU (`gpu:watch`) instead
 * of taking the whole fleet's feed. Each watched GPU is a room; at every
 * flush each room gets one delta, built and encoded once for all its
 * sockets from the same drained delta as the member scope: the GPU's
 * reading row with every field, its host, replayed points, its state, and
 * its bookings when they changed. A socket that starts watching gets a
 * snapshot at the next flush (its GPU whole, 15 minutes of history) and
 * then the deltas of the flushes after it: that flush's delta goes to the
 * rest of the room, since the snapshot already holds what it says.
 */
export class GpuScope {
  private readonly rooms = new Map<string, Room>();
  /** The GPUs each socket watches. */
  private readonly watching = new Map<string, Set<string>>();
  /** The booking feed announced a change since the last flush: each room compares its GPU's bookings then, not at every flush. */
  private bookingsDirty = false;

  constructor(
    private readonly source: GpuScopeSource,
    private readonly slots: SlotRegistry,
  ) {}

  /** Adds a watch; false when the socket already watches MAX_WATCHED_GPUS others. Watching again re-sends the snapshot. */
  watch(socketId: string, uuid: string): boolean {
    const mine = this.watching.get(socketId) ?? new Set<string>();
    if (!mine.has(uuid) && mine.size >= MAX_WATCHED_GPUS) return false;
    mine.add(uuid);
    this.watching.set(socketId, mine);
    let room = this.rooms.get(uuid);
    if (!room) {
      room = { sockets: new Set(), awaiting: new Set(), encoder: new MemberEncoder(this.slots), bookingsKey: "", hostId: null };
      this.rooms.set(uuid, room);
    }
    room.sockets.add(socketId);
    room.awaiting.add(socketId);
    return true;
  }

  unwatch(socketId: string, uuid: string): void {
    const mine = this.watching.get(socketId);
    mine?.delete(uuid);
    if (mine?.size === 0) this.watching.delete(socketId);
    const room = this.rooms.get(uuid);
    if (!room) return;
    room.sockets.delete(socketId);
    room.awaiting.delete(socketId);
    // The next watcher starts from a snapshot: nothing to remember meanwhile.
    if (room.sockets.size === 0) this.rooms.delete(uuid);
  }

  /** Every watch of a socket that went away. */
  forget(socketId: string): void {
    for (const uuid of [...(this.watching.get(socketId) ?? [])]) this.unwatch(socketId, uuid);
  }

  watched(socketId: string): string[] {
    return [...(this.watching.get(socketId) ?? [])];
  }

  /** True when some socket waits for its snapshot: the flush must then send a delta too. */
  get waiting(): boolean {
    for (const room of this.rooms.values()) if (room.awaiting.size > 0) return true;
    return false;
  }

  /** The booking feed's change notice (`bookings.subscribe`): the next flush compares each watched GPU's bookings. */
  bookingsChanged(): void {
    this.bookingsDirty = true;
  }

  /**
   * One flush: snapshots to the sockets that wait for one, then each room's
   * delta of `drained` (null: no readings) to the room except those
   * sockets. `emit` sends to a room (but not to `except`) or to a list of sockets.
   */
  flush(
    drained: FleetDelta | null,
    emit: {
      snapshot(socketIds: string[], snapshot: GpuSnapshotWire): void;
      delta(room: string, delta: GpuDeltaWire, except: string[]): void;
    },
  ): void {
    const compareBookings = this.bookingsDirty;
    this.bookingsDirty = false;
    if (this.rooms.size === 0) return;
    const bookings = compareBookings || this.waiting ? this.source.bookings() : [];
    const indexed = drained ? indexDrained(drained) : null;
    for (const [uuid, room] of this.rooms) {
      const snapshotted = [...room.awaiting];
      room.awaiting.clear();
      const found = snapshotted.length > 0 || compareBookings ? this.source.gpu(uuid) : null;
      const unit: SiliconUnit = found ? siliconOf(found.gpu) : { uuid };
      if (snapshotted.length > 0) emit.snapshot(snapshotted, this.snapshot(uuid, room, bookingsOf(bookings, unit)));
      // Built even when every watcher just got its snapshot: the encoder must remember what it says.
      const delta = this.delta(uuid, room, indexed, compareBookings ? bookingsOf(bookings, unit) : null);
      if (delta && snapshotted.length < room.sockets.size) emit.delta(gpuRoom(uuid), delta, snapshotted);
    }
  }

  private snapshot(uuid: string, room: Room, bookings: LiveBooking[]): GpuSnapshotWire {
    const now = Date.now();
    const found = this.source.gpu(uuid);
    if (found) room.encoder.remember(found.gpu);
    room.hostId = found?.gpu.hostId ?? room.hostId;
    room.bookingsKey = JSON.stringify(bookings);
    return {
      v: LIVE_FORMAT_VERSION,
      u: uuid,
      serverTime: new Date(now).toISOString(),
      simulated: this.source.simulated,
      slot: found ? this.slots.of(uuid) : null,
      gpu: found?.gpu ?? null,
      host: found?.host ?? null,
      history: pointColumns(this.source.history(uuid)?.points ?? [], now),
      state: this.source.gpuState(uuid),
      bookings,
    };
  }

  /** `bookings`: the GPU's bookings now, when the feed announced a change; null when it did not. */
  private delta(uuid: string, room: Room, drained: DrainedIndex | null, bookings: LiveBooking[] | null): GpuDeltaWire | null {
    const bookingsKey = bookings ? JSON.stringify(bookings) : room.bookingsKey;
    const bookingsChanged = bookingsKey !== room.bookingsKey;
    room.bookingsKey = bookingsKey;
    // The host matters only to take this GPU's part of a drained delta: not looked up at the flushes without one.
    if (drained) room.hostId = this.source.gpu(uuid)?.gpu.hostId ?? room.hostId;
    const own = drained ? deltaOf(drained, uuid, room.hostId) : null;
    if (!own && !bookingsChanged) return null;
    const encoded = own ? room.encoder.encode(own) : { v: LIVE_FORMAT_VERSION, t: Date.now() };
    return { ...encoded, u: uuid, ...(bookingsChanged && bookings ? { b: bookings } : {}) };
  }
}
