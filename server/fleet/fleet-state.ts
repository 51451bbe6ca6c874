import type { FleetDelta, FleetSnapshot, GpuHistory, GpuPoint, LiveGpu, LiveHost, SparklineColumns } from "@/lib/live/live";
import { HISTORY_POINTS, SPARKLINE_POINTS } from "@/lib/live/live";
import type { GpuSample, Snapshot } from "@/lib/domain/snapshot";
import { liveGpuOf } from "@/lib/live/live-gpu";
import { columnsOfPoints, pointOfSample } from "@/lib/live/live-points";
import { PointRing } from "@/server/fleet/point-ring";

interface HostEntry {
  host: LiveHost;
  /** Time (ms) of the newest sample applied to the live state. */
  newestSampleAt: number;
  /** Time (ms) a sample last arrived, whatever its age: silence is measured from here. */
  lastArrivalAt: number | null;
  /** Where the host's agent is connected: this instance (LOCAL) and/or other instances of a cluster (their ids). */
  connectedVia: Set<string>;
}

interface GpuEntry {
  gpu: LiveGpu;
  /** `gpu.sampledAt` in ms. */
  sampledAtMs: number;
  history: PointRing;
  /** Newest point already sent to browsers; older replayed points go to history only. */
  sentUpTo: number;
}

export interface IngestResult {
  /** False when the snapshot was older than the live state (it still fed the history). */
  live: boolean;
  /** True when the host's set of GPUs changed with this snapshot. */
  inventoryChanged: boolean;
}

/** The `via` of an agent connected to this process (as opposed to another instance's id, see server/cluster/). */
export const LOCAL = "local";

/** A change of a host that this instance's own agents caused: what server/cluster/fleet-relay.ts forwards. */
export type LocalHostChange =
  | { kind: "connected"; hostId: string; name: string; simulated: boolean }
  | { kind: "disconnected"; hostId: string }
  | { kind: "removed"; hostId: string };

export interface FleetStateOptions {
  offlineAfterMs: number;
  simulated: boolean;
  now?: () => number;
}

/**
 * The live state of the fleet, in memory: the latest reading of every GPU,
 * 15 minutes of history per GPU, and what changed since the last broadcast.
 * Agents write into it; the /live namespace reads snapshots and drains deltas.
 */
export class FleetState {
  private readonly hosts = new Map<string, HostEntry>();
  private readonly gpus = new Map<string, GpuEntry>();
  private readonly dirtyHosts = new Set<string>();
  private readonly dirtyGpus = new Set<string>();
  private readonly removedHosts = new Set<string>();
  private readonly now: () => number;
  private readonly localListeners = new Set<(change: LocalHostChange) => void>();
  private readonly readingListeners = new Set<(hostId: string, sampledAtMs: number) => void>();
  private readonly hostChangeListeners = new Set<() => void>();

  private simulationEnded = false;

  constructor(private readonly options: FleetStateOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Hears of the connections, disconnections and removals made on this instance (not those applied for other instances). */
  onLocalChange(listener: (change: LocalHostChange) => void): () => void {
    this.localListeners.add(listener);
    return () => {
      this.localListeners.delete(listener);
    };
  }

  /**
   * Hears of every live reading applied (this instance's agents and those
   * relayed from others), after it is in the state: the live feed's pacer
   * flushes when the readings it waits for have come.
   */
  onReading(listener: (hostId: string, sampledAtMs: number) => void): () => void {
    this.readingListeners.add(listener);
    return () => {
      this.readingListeners.delete(listener);
    };
  }

  /**
   * Hears of every change to the hosts other than a reading (one became
   * known, went online or offline, was removed), on this instance or
   * relayed: the live feed sends it without waiting for the tick.
   */
  onHostChange(listener: () => void): () => void {
    this.hostChangeListeners.add(listener);
    return () => {
      this.hostChangeListeners.delete(listener);
    };
  }

  /**
   * Makes a host known (an agent connected); it stays offline until its
   * first sample. `via` is LOCAL for this process's agents, or the id of the
   * instance that holds the agent's connection.
   */
  connectHost(id: string, name: string, simulated: boolean, via: string = LOCAL): void {
    if (via === LOCAL) this.tell({ kind: "connected", hostId: id, name, simulated });
    const entry = this.hosts.get(id);
    if (entry) {
      entry.connectedVia.add(via);
      return;
    }
    this.hosts.set(id, {
      host: {
        id,
        name,
        simulated,
        online: false,
        lastSeenAt: null,
        driverVersion: null,
        cudaVersion: null,
        gpuUuids: [],
      },
      newestSampleAt: 0,
      lastArrivalAt: null,
      connectedVia: new Set([via]),
    });
    this.dirtyHosts.add(id);
    this.hostChanged();
  }

  /** The agent's connection closed: the host is offline now, not after the timeout. */
  disconnectHost(id: string, via: string = LOCAL): void {
    if (via === LOCAL) this.tell({ kind: "disconnected", hostId: id });
    const entry = this.hosts.get(id);
    if (!entry) return;
    entry.connectedVia.delete(via);
    // Still connected elsewhere (an agent that moved to another instance): its samples keep it online.
    if (entry.connectedVia.size === 0) this.setOnline(entry, false);
  }

  /** The host id that reports a GPU, if any (used to refuse another host's GPUs). */
  ownerOfGpu(uuid: string): string | undefined {
    return this.gpus.get(uuid)?.gpu.hostId;
  }

  ingest(hostId: string, snapshot: Snapshot): IngestResult {
    const entry = this.hosts.get(hostId);
    if (!entry) throw new Error(`ingest for unknown host ${hostId}`);
    const sampledAt = Date.parse(snapshot.sampledAt);
    entry.lastArrivalAt = this.now();

    for (const sample of snapshot.gpus) this.gpus.get(sample.uuid)?.history.insert(pointOfSample(sample, sampledAt));

    if (sampledAt < entry.newestSampleAt) {
      this.setOnline(entry, entry.connectedVia.size > 0);
      return { live: false, inventoryChanged: false };
    }
    entry.newestSampleAt = sampledAt;

    const uuids = uuidsByIndex(snapshot.gpus);
    const previous = entry.host.gpuUuids;
    const inventoryChanged = !sameList(uuids, previous);
    if (inventoryChanged) {
      for (const gone of previous) if (!uuids.includes(gone)) this.gpus.delete(gone);
    }

    for (const sample of snapshot.gpus) {
      // Most hosts report no process on most GPUs: one scan of a short list beats a map per reading.
      const processes = snapshot.processes.length === 0 ? [] : snapshot.processes.filter((process) => process.gpuUuid === sample.uuid);
      const gpu = liveGpuOf(sample, hostId, entry.host.name, snapshot.sampledAt, processes);
      const existing = this.gpus.get(sample.uuid);
      if (existing) {
        existing.gpu = gpu;
        existing.sampledAtMs = sampledAt;
      } else {
        const history = new PointRing(HISTORY_POINTS);
        history.insert(pointOfSample(sample, sampledAt));
        this.gpus.set(sample.uuid, { gpu, sampledAtMs: sampledAt, history, sentUpTo: 0 });
      }
      this.dirtyGpus.add(sample.uuid);
    }

    const host = entry.host;
    const versionsChanged =
      host.driverVersion !== snapshot.host.driverVersion || host.cudaVersion !== snapshot.host.cudaVersion;
    // A new lastSeenAt alone does not make the host dirty: browsers advance
    // it from the GPUs' sampledAt in each delta (lib/live/live-fleet-state.ts),
    // so a host goes out only when what they show changed. A host without
    // GPUs has nothing to advance it from, so its samples still go out.
    const firstSeen = host.lastSeenAt === null;
    host.driverVersion = snapshot.host.driverVersion;
    host.cudaVersion = snapshot.host.cudaVersion;
    host.lastSeenAt = new Date(sampledAt).toISOString();
    if (inventoryChanged) host.gpuUuids = uuids;
    if (inventoryChanged || versionsChanged || firstSeen || uuids.length === 0) this.dirtyHosts.add(hostId);
    this.setOnline(entry, entry.connectedVia.size > 0);
    for (const listener of this.readingListeners) listener(hostId, sampledAt);
    return { live: true, inventoryChanged: inventoryChanged || versionsChanged };
  }

  /** Marks hosts offline whose agent has been silent for longer than the limit. */
  checkOffline(): void {
    const now = this.now();
    for (const entry of this.hosts.values()) {
      if (entry.host.online && (entry.lastArrivalAt === null || now - entry.lastArrivalAt > this.options.offlineAfterMs)) {
        this.setOnline(entry, false);
      }
    }
  }

  removeHost(id: string, via: string = LOCAL): void {
    if (via === LOCAL) this.tell({ kind: "removed", hostId: id });
    const entry = this.hosts.get(id);
    if (!entry) return;
    for (const uuid of entry.host.gpuUuids) this.gpus.delete(uuid);
    this.hosts.delete(id);
    this.dirtyHosts.delete(id);
    this.removedHosts.add(id);
    this.hostChanged();
  }

  /** Hosts and GPUs as they are now, without history: what per-tick rules and booking checks read. */
  current(): { hosts: LiveHost[]; gpus: LiveGpu[] } {
    return {
      hosts: [...this.hosts.values()].map((entry) => ({ ...entry.host })).sort(byName),
      gpus: [...this.gpus.values()].map((entry) => entry.gpu),
    };
  }

  /** One GPU as it is now, with its host; null for an unknown UUID. */
  gpu(uuid: string): { gpu: LiveGpu; host: LiveHost | null } | null {
    const entry = this.gpus.get(uuid);
    if (!entry) return null;
    const host = this.hosts.get(entry.gpu.hostId);
    return { gpu: entry.gpu, host: host ? { ...host.host } : null };
  }

  snapshot(): FleetSnapshot {
    const sparklines: Record<string, SparklineColumns> = {};
    for (const [uuid, entry] of this.gpus) sparklines[uuid] = columnsOfPoints(entry.history.last(SPARKLINE_POINTS));
    return {
      serverTime: new Date(this.now()).toISOString(),
      simulated: this.simulated,
      ...this.current(),
      sparklines,
    };
  }

  /** How many GPUs and hosts changed since the last drainDelta (the live feed's flush paces on it). */
  pendingChanges(): number {
    return this.dirtyGpus.size + this.dirtyHosts.size + this.removedHosts.size;
  }

  /**
   * What changed since the last call: the latest values of each changed GPU
   * (coalesced, however many samples arrived) and the new live-edge points.
   * Null when nothing changed.
   */
  drainDelta(): FleetDelta | null {
    if (this.dirtyHosts.size === 0 && this.dirtyGpus.size === 0 && this.removedHosts.size === 0) return null;
    const points: Record<string, GpuPoint[]> = {};
    const gpus: LiveGpu[] = [];
    for (const uuid of this.dirtyGpus) {
      const entry = this.gpus.get(uuid);
      if (!entry) continue;
      gpus.push(entry.gpu);
      const fresh = entry.history.after(entry.sentUpTo);
      if (fresh.length > 0) {
        entry.sentUpTo = fresh[fresh.length - 1].t;
        // The usual case, the entry's own reading and nothing else, goes
        // without a point: browsers make it from the entry (lib/live/live-points.ts).
        const onlyTheEntry = fresh.length === 1 && fresh[0].t === entry.sampledAtMs;
        if (!onlyTheEntry) points[uuid] = fresh.slice(-SPARKLINE_POINTS);
      }
    }
    const hosts = [...this.dirtyHosts].flatMap((id) => {
      const entry = this.hosts.get(id);
      return entry ? [{ ...entry.host }] : [];
    });
    const delta: FleetDelta = {
      serverTime: new Date(this.now()).toISOString(),
      hosts,
      gpus,
      points,
      removedHostIds: [...this.removedHosts],
    };
    this.dirtyHosts.clear();
    this.dirtyGpus.clear();
    this.removedHosts.clear();
    return delta;
  }

  /** The last 15 minutes of one GPU, or null for an unknown UUID. */
  history(uuid: string): GpuHistory | null {
    const entry = this.gpus.get(uuid);
    if (!entry) return null;
    const since = this.now() - HISTORY_POINTS * 1000;
    return { uuid, points: entry.history.since(since) };
  }

  /** True when the fleet is the simulated one (no nvidia-smi here), until the demo ends (`endSimulation`). */
  get simulated(): boolean {
    return this.options.simulated && !this.simulationEnded;
  }

  /** The lab was chosen: the simulated fleet stopped while the server runs, so nothing says "simulated" any more (snapshots, the wall). */
  endSimulation(): void {
    this.simulationEnded = true;
  }

  get gpuCount(): number {
    return this.gpus.size;
  }

  private tell(change: LocalHostChange): void {
    for (const listener of this.localListeners) listener(change);
  }

  private setOnline(entry: HostEntry, online: boolean): void {
    if (entry.host.online === online) return;
    entry.host.online = online;
    this.dirtyHosts.add(entry.host.id);
    this.hostChanged();
  }

  private hostChanged(): void {
    for (const listener of this.hostChangeListeners) listener();
  }
}

/** A host's GPU UUIDs in index order. */
function uuidsByIndex(gpus: readonly GpuSample[]): string[] {
  let ordered = true;
  for (let i = 1; i < gpus.length; i++) if (gpus[i - 1]!.index > gpus[i]!.index) ordered = false;
  const sorted = ordered ? gpus : [...gpus].sort((a, b) => a.index - b.index);
  return sorted.map((gpu) => gpu.uuid);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function byName(a: LiveHost, b: LiveHost): number {
  return a.name.localeCompare(b.name);
}
