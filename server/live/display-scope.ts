import type { GpuReconciliation } from "@/lib/domain/attribution";
import { displayGpusFromFleet, type DisplayViewOptions } from "@/lib/live/display-from-fleet";
import type { DisplayGpu, DisplayHost, LiveBooking, LiveGpu, LiveHost } from "@/lib/live/live";
import { pushChangedRow, quantize, type RowValue } from "@/lib/live/live-rows";
import {
  LIVE_FORMAT_VERSION,
  displayFixedKey,
  displayTuple,
  type DisplayDeltaWire,
  type DisplaySnapshotWire,
} from "@/lib/live/live-wire";
import type { SlotRegistry } from "@/server/live/member-encoder";

/** Where the display scope reads from; each is called once per step. */
export interface DisplaySources {
  fleet: () => { hosts: LiveHost[]; gpus: LiveGpu[] };
  /** The reconciled states by UUID; empty where the server does not reconcile (the state is derived here then). */
  gpuStates: () => Record<string, GpuReconciliation>;
  bookings: () => LiveBooking[];
  openAlerts: () => number | null;
  simulated: boolean;
}

/** A display's `?hosts=` filter as a room: host names, lower case, sorted; null for all. */
export function displayFilterKey(names: string[] | null | undefined): string {
  if (!names || names.length === 0) return "*";
  return [...new Set(names.map((name) => name.trim().toLowerCase()).filter(Boolean))].sort().join(",") || "*";
}

interface HeldGpu {
  fixed: string;
  tuple: RowValue[];
}

interface StepChanges {
  /** Changed or new hosts (whole). */
  hosts: DisplayHost[];
  removedHostIds: string[];
  gpus: { slot: number; gpu: DisplayGpu; row: RowValue[] | null }[];
  openAlerts: { changed: boolean; value: number | null };
}

/**
 * The display scope: per GPU its state, rounded load, memory and
 * temperature, and the booker's display name and end; per host its name
 * and whether it answers; the open-alert count. Nothing else reaches a wall
 * screen. Each step builds that view of the whole fleet once and what
 * changed since the last step; every filter (room) then takes its part of
 * it, so the work per flush does not grow with the number of screens.
 */
export class DisplayScope {
  private readonly heldGpus = new Map<string, HeldGpu>();
  private readonly heldHosts = new Map<string, string>();
  private heldAlerts: number | null | undefined = undefined;
  private hosts: DisplayHost[] = [];
  private gpus = new Map<string, DisplayGpu>();
  private changes: StepChanges = { hosts: [], removedHostIds: [], gpus: [], openAlerts: { changed: false, value: null } };
  private openAlerts: number | null = null;

  constructor(
    private readonly sources: DisplaySources,
    private readonly slots: SlotRegistry,
    /** What this scope's screens may see beyond the reduced view: a display's settings. */
    private readonly view: DisplayViewOptions = {},
  ) {}

  /** Takes the fleet as it is now; the snapshots and deltas of this flush come from it. */
  step(nowMs: number): void {
    const { hosts, gpus } = this.sources.fleet();
    const states = this.sources.gpuStates();
    const bookings = this.sources.bookings();
    const onlineHosts = new Set(hosts.filter((host) => host.online).map((host) => host.id));

    const changes: StepChanges = { hosts: [], removedHostIds: [], gpus: [], openAlerts: { changed: false, value: null } };
    const seenHosts = new Set<string>();
    this.hosts = hosts.map((host) => {
      const shown: DisplayHost = { id: host.id, name: host.name, online: host.online, lastSeenAt: host.lastSeenAt, gpuUuids: host.gpuUuids };
      seenHosts.add(host.id);
      // lastSeenAt moves with every reading; it is news only with the rest (an offline host's age).
      const key = `${host.name}\u0000${host.online}\u0000${host.gpuUuids.join(",")}`;
      if (this.heldHosts.get(host.id) !== key) {
        this.heldHosts.set(host.id, key);
        changes.hosts.push(shown);
      }
      return shown;
    });
    for (const id of this.heldHosts.keys()) {
      if (!seenHosts.has(id)) {
        this.heldHosts.delete(id);
        changes.removedHostIds.push(id);
      }
    }

    const current = new Map<string, DisplayGpu>();
    // The same fields a page derives from the member feed (lib/live/display-from-fleet.ts: the one
    // availability rule, one way to name the booker), rounded to what the screen shows.
    const derived = displayGpusFromFleet(Object.fromEntries(gpus.map((gpu) => [gpu.uuid, gpu])), onlineHosts, bookings, states, nowMs, this.view);
    for (const gpu of gpus) {
      const fields = derived[gpu.uuid];
      // A GPU split into MIG slices has no tile: its slices do.
      if (!fields) continue;
      const shown: DisplayGpu = {
        ...fields,
        utilizationPct: quantize(fields.utilizationPct),
        memoryUsedMiB: quantize(fields.memoryUsedMiB),
        memoryTotalMiB: quantize(fields.memoryTotalMiB),
        temperatureC: quantize(fields.temperatureC),
      };
      current.set(gpu.uuid, shown);
      const fixed = displayFixedKey(shown);
      const tuple = displayTuple(shown);
      const held = this.heldGpus.get(gpu.uuid);
      this.heldGpus.set(gpu.uuid, { fixed, tuple });
      const slot = this.slots.of(gpu.uuid);
      if (!held || held.fixed !== fixed) {
        changes.gpus.push({ slot, gpu: shown, row: null });
        continue;
      }
      const row: RowValue[] = [];
      if (pushChangedRow(row, held.tuple, tuple)) changes.gpus.push({ slot, gpu: shown, row });
    }
    for (const uuid of this.heldGpus.keys()) if (!current.has(uuid)) this.heldGpus.delete(uuid);
    this.gpus = current;

    this.openAlerts = this.sources.openAlerts();
    changes.openAlerts = { changed: this.heldAlerts !== undefined && this.heldAlerts !== this.openAlerts, value: this.openAlerts };
    this.heldAlerts = this.openAlerts;
    this.changes = changes;
  }

  /** The ids of the hosts a filter shows now, in fleet order (what a room's screens hold). */
  hostIdsFor(filterKey: string): string[] {
    return this.hostsFor(filterKey).map((host) => host.id);
  }

  snapshot(filterKey: string): DisplaySnapshotWire {
    const hosts = this.hostsFor(filterKey);
    const gpus = hosts.flatMap((host) => host.gpuUuids.flatMap((uuid) => this.gpus.get(uuid) ?? []));
    return {
      v: LIVE_FORMAT_VERSION,
      serverTime: new Date().toISOString(),
      simulated: this.sources.simulated,
      hosts,
      gpus,
      slots: gpus.map((gpu) => this.slots.of(gpu.uuid)),
      openAlerts: this.openAlerts,
    };
  }

  /** What changed in the last step for a filter's screens; null when nothing did. */
  delta(filterKey: string, nowMs: number): DisplayDeltaWire | null {
    const shown = new Set(this.hostIdsFor(filterKey));
    const wire: DisplayDeltaWire = { v: LIVE_FORMAT_VERSION, t: nowMs };
    const hosts = this.changes.hosts.filter((host) => shown.has(host.id));
    if (hosts.length > 0) wire.h = hosts;
    if (this.changes.removedHostIds.length > 0) wire.x = this.changes.removedHostIds;
    const whole: [number, DisplayGpu][] = [];
    const rows: RowValue[] = [];
    for (const change of this.changes.gpus) {
      if (!shown.has(change.gpu.hostId)) continue;
      if (change.row) rows.push(change.slot, ...change.row);
      else whole.push([change.slot, change.gpu]);
    }
    if (whole.length > 0) wire.n = whole;
    if (rows.length > 0) wire.r = rows;
    if (this.changes.openAlerts.changed) wire.a = this.changes.openAlerts.value;
    return Object.keys(wire).length > 2 ? wire : null;
  }

  private hostsFor(filterKey: string): DisplayHost[] {
    if (filterKey === "*") return this.hosts;
    const names = new Set(filterKey.split(","));
    return this.hosts.filter((host) => names.has(host.name.toLowerCase()));
  }
}
