import type { AgentSamplesReply } from "@/lib/agent-protocol";
import type { Snapshot } from "@/lib/snapshot";
import { checkReading } from "@/server/fleet/check-reading";
import type { FleetState } from "@/server/fleet/fleet-state";
import { findGpuOwners, inventorySignature, recordHostInventory, recordHostsSeen, type RegisteredHost } from "@/server/hosts/host-registry";
import { log } from "@/server/log";

/** Inventory and last-seen time are written at most this often while nothing changes. */
const PERSIST_EVERY_MS = 60_000;
/** Last-seen writes due within this long are written together (agents report at their own offsets of the second). */
const SEEN_BATCH_MS = 5000;

export interface IngestCounters {
  acceptedSnapshots: number;
  rejectedSnapshots: number;
  rejectedMessages: number;
  droppedByAgents: number;
}

/**
 * Validates agent readings and applies them to the live fleet. Every
 * snapshot is checked on its own (zod ranges, clock, GPU ownership), so one
 * bad reading is refused without losing the valid ones around it. Past this
 * point a process's GPUDESK_RESERVATION is the booking id and whether its
 * proof held; the proof itself goes no further (live feed, history, relay).
 */
export function createIngest(
  fleet: FleetState,
  now: () => number = Date.now,
  /** Called with every accepted snapshot, live or replayed, in order (the usage history's rollups). */
  onAccepted?: (host: RegisteredHost, snapshot: Snapshot) => void,
) {
  const counters: IngestCounters = { acceptedSnapshots: 0, rejectedSnapshots: 0, rejectedMessages: 0, droppedByAgents: 0 };
  const lastPersisted = new Map<string, number>();
  const persisting = new Map<string, Promise<void>>();
  /** The inventory signature of what this process last stored per host: a report that matches it only moves the last-seen times. */
  const stored = new Map<string, string>();
  /** Hosts due a last-seen write, gathered for SEEN_BATCH_MS and written together. */
  const seen = new Map<string, { uuids: string[]; seenAtMs: number }>();
  let seenTimer: NodeJS.Timeout | null = null;
  let seenWrite: Promise<void> = Promise.resolve();

  function writeSeen(): Promise<void> {
    if (seenTimer) clearTimeout(seenTimer);
    seenTimer = null;
    if (seen.size === 0) return seenWrite;
    const batch = [...seen];
    seen.clear();
    // One time for the batch, its oldest: a host's last-seen time is never later than its reading.
    const seenAt = new Date(Math.min(...batch.map(([, entry]) => entry.seenAtMs)));
    seenWrite = seenWrite
      .then(() => recordHostsSeen(batch.map(([hostId]) => hostId), batch.flatMap(([, entry]) => entry.uuids), seenAt))
      .catch((error: unknown) => log.error(`could not record last-seen times of ${batch.length} host(s): ${String(error)}`));
    return seenWrite;
  }

  async function write(hostId: string, snapshot: Snapshot): Promise<void> {
    const signature = inventorySignature(snapshot.host, snapshot.gpus);
    if (stored.get(hostId) === signature) {
      seen.set(hostId, { uuids: snapshot.gpus.map((gpu) => gpu.uuid), seenAtMs: Date.parse(snapshot.sampledAt) });
      seenTimer ??= setTimeout(() => void writeSeen(), SEEN_BATCH_MS).unref();
      return;
    }
    seen.delete(hostId);
    stored.delete(hostId);
    await recordHostInventory(hostId, snapshot.host, snapshot.gpus, new Date(snapshot.sampledAt));
    stored.set(hostId, signature);
  }

  function persist(host: RegisteredHost, snapshot: Snapshot, force: boolean): void {
    const at = now();
    if (!force && at - (lastPersisted.get(host.id) ?? 0) < PERSIST_EVERY_MS) return;
    lastPersisted.set(host.id, at);
    // One write at a time per host, in order.
    const previous = persisting.get(host.id) ?? Promise.resolve();
    const next = previous
      .then(() => write(host.id, snapshot))
      .catch((error: unknown) => log.error(`could not record inventory of ${host.name}: ${String(error)}`));
    persisting.set(host.id, next);
  }

  async function checkOwnership(host: RegisteredHost, snapshot: Snapshot): Promise<string | null> {
    const unknown: string[] = [];
    for (const gpu of snapshot.gpus) {
      const owner = fleet.ownerOfGpu(gpu.uuid);
      if (owner === undefined) unknown.push(gpu.uuid);
      else if (owner !== host.id) return `GPU ${gpu.uuid} belongs to another host`;
    }
    if (unknown.length === 0) return null;
    const owners = await findGpuOwners(unknown);
    for (const [uuid, owner] of owners) {
      if (owner !== host.id) return `GPU ${uuid} belongs to another host`;
    }
    return null;
  }

  async function ingestBatch(host: RegisteredHost, snapshots: unknown[], dropped = 0): Promise<AgentSamplesReply> {
    const reply: AgentSamplesReply = { accepted: 0, rejected: [] };
    if (dropped > 0) {
      counters.droppedByAgents += dropped;
      log.warn(`agent of ${host.name} dropped ${dropped} samples while the server was unreachable`);
    }
    const valid: { index: number; snapshot: Snapshot }[] = [];
    snapshots.forEach((raw, index) => {
      const checked = checkReading(raw, now());
      if (checked.ok) valid.push({ index, snapshot: checked.snapshot });
      else reply.rejected.push({ index, error: checked.error });
    });
    // Oldest first, so that the live state ends on the newest reading.
    valid.sort((a, b) => Date.parse(a.snapshot.sampledAt) - Date.parse(b.snapshot.sampledAt));
    for (const { index, snapshot } of valid) {
      const ownershipError = await checkOwnership(host, snapshot);
      if (ownershipError) {
        reply.rejected.push({ index, error: ownershipError });
        continue;
      }
      const result = fleet.ingest(host.id, snapshot);
      if (result.live) persist(host, snapshot, result.inventoryChanged);
      onAccepted?.(host, snapshot);
      reply.accepted += 1;
    }
    counters.acceptedSnapshots += reply.accepted;
    counters.rejectedSnapshots += reply.rejected.length;
    if (reply.rejected.length > 0) {
      // Each distinct reason once (a replayed buffer may repeat one a hundred times).
      const reasons = [...new Set(reply.rejected.map((entry) => entry.error))];
      const shown = reasons.slice(0, 3).join("; ") + (reasons.length > 3 ? `; and ${reasons.length - 3} more reasons` : "");
      log.warn(`refused ${reply.rejected.length} snapshot(s) from ${host.name}: ${shown}`);
    }
    return reply;
  }

  /** Writes what is pending now and waits for it (shutdown, tests). */
  async function flush(): Promise<void> {
    await Promise.all(persisting.values());
    await writeSeen();
  }

  return { ingestBatch, counters, flush };
}

export type Ingest = ReturnType<typeof createIngest>;
