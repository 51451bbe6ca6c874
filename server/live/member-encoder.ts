import type { FleetDelta, FleetSnapshot, LiveGpu, LiveHost } from "@/lib/live/live";
import { pushChangedRow, type RowValue } from "@/lib/live/live-rows";
import {
  LIVE_FORMAT_VERSION,
  gpuFixedKey,
  pointColumns,
  readingTuple,
  type FleetDeltaWire,
  type FleetSnapshotWire,
  type PointColumns,
} from "@/lib/live/live-wire";

/**
 * Slot numbers for GPUs, handed out once per server process and never
 * reused: every snapshot and delta of every scope names a GPU by the same
 * slot, so a browser's table from its snapshot stays right for all later deltas.
 */
export class SlotRegistry {
  private readonly slots = new Map<string, number>();

  of(uuid: string): number {
    let slot = this.slots.get(uuid);
    if (slot === undefined) {
      slot = this.slots.size;
      this.slots.set(uuid, slot);
    }
    return slot;
  }
}

interface Held {
  fixed: string;
  tuple: RowValue[];
}

/**
 * The member scope's encoder: turns each drained FleetDelta into the compact
 * wire delta, once per flush for every viewer of the scope. It remembers
 * what the last delta said of every GPU (values rounded as sent), so the
 * next carries only what changed since. Browsers that connect in between
 * get a snapshot at least as new as that memory (see live-endpoint.ts),
 * so they miss nothing.
 */
export class MemberEncoder {
  private readonly held = new Map<string, Held>();
  /** GPUs per host as last sent: what to forget when a host goes or loses a GPU. */
  private readonly hostGpus = new Map<string, string[]>();

  /**
   * `shape` is what of a GPU this scope carries: the member scope passes
   * `memberSummaryOf` (lib/live/live-wire.ts), the GPU scope carries it whole.
   */
  constructor(
    private readonly slots: SlotRegistry,
    private readonly shape: (gpu: LiveGpu) => LiveGpu = (gpu) => gpu,
  ) {}

  /**
   * Takes a GPU as a snapshot just showed it, when the encoder holds nothing
   * of it yet: the next delta then says only what changed since, instead of
   * sending the GPU whole.
   */
  remember(gpu: LiveGpu): void {
    if (this.held.has(gpu.uuid)) return;
    this.held.set(gpu.uuid, { fixed: gpuFixedKey(gpu), tuple: readingTuple(this.shape(gpu)) });
    const listed = this.hostGpus.get(gpu.hostId) ?? [];
    if (!listed.includes(gpu.uuid)) this.hostGpus.set(gpu.hostId, [...listed, gpu.uuid]);
  }

  snapshot(snapshot: FleetSnapshot): FleetSnapshotWire {
    return { ...snapshot, gpus: snapshot.gpus.map(this.shape), v: LIVE_FORMAT_VERSION, slots: snapshot.gpus.map((gpu) => this.slots.of(gpu.uuid)) };
  }

  encode(delta: FleetDelta): FleetDeltaWire {
    const t = Date.parse(delta.serverTime);
    const wire: FleetDeltaWire = { v: LIVE_FORMAT_VERSION, t };
    this.forgetGone(delta.hosts, delta.removedHostIds);

    const whole: [number, FleetDelta["gpus"][number]][] = [];
    const groups = new Map<number, RowValue[]>();
    for (const gpu of delta.gpus.map(this.shape)) {
      const slot = this.slots.of(gpu.uuid);
      const fixed = gpuFixedKey(gpu);
      const tuple = readingTuple(gpu);
      const held = this.held.get(gpu.uuid);
      if (!held || held.fixed !== fixed) {
        this.held.set(gpu.uuid, { fixed, tuple });
        whole.push([slot, gpu]);
        continue;
      }
      const offset = Date.parse(gpu.sampledAt) - t;
      let group = groups.get(offset);
      if (!group) {
        group = [offset];
        groups.set(offset, group);
      }
      group.push(slot);
      // Always a row, if only its mask 0: the reading's time is news (a new chart point, "last seen").
      const maskAt = group.length;
      pushChangedRow(group, held.tuple, tuple, true);
      // Only what changed replaces what is held: an entry made anew every second lived just
      // long enough to reach the old generation, and was a sixth of what filled it (issue 42).
      const mask = group[maskAt] as number;
      for (let i = 0; i < tuple.length; i += 1) if (mask & (1 << i)) held.tuple[i] = tuple[i]!;
    }

    if (delta.hosts.length > 0) wire.h = delta.hosts;
    if (delta.removedHostIds.length > 0) wire.x = delta.removedHostIds;
    if (whole.length > 0) wire.n = whole;
    if (groups.size > 0) wire.r = [...groups.values()];
    const points = Object.entries(delta.points);
    if (points.length > 0) {
      const bySlot: Record<string, PointColumns> = {};
      for (const [uuid, list] of points) bySlot[this.slots.of(uuid)] = pointColumns(list, t);
      wire.p = bySlot;
    }
    if (delta.gpuStates && Object.keys(delta.gpuStates).length > 0) wire.s = delta.gpuStates;
    return wire;
  }

  /** A GPU that left (its host removed, or off the host's list) is sent whole if it comes back. */
  private forgetGone(hosts: LiveHost[], removedHostIds: string[]): void {
    for (const id of removedHostIds) {
      for (const uuid of this.hostGpus.get(id) ?? []) this.held.delete(uuid);
      this.hostGpus.delete(id);
    }
    for (const host of hosts) {
      const listed = new Set(host.gpuUuids);
      for (const uuid of this.hostGpus.get(host.id) ?? []) if (!listed.has(uuid)) this.held.delete(uuid);
      this.hostGpus.set(host.id, host.gpuUuids);
    }
  }
}
