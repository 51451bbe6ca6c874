import type { Snapshot } from "@/lib/domain/snapshot";
import { inventorySignature, recordHostInventory, recordHostsSeen, type RegisteredHost } from "@/server/hosts/host-registry";
import { announceInventoryChanged } from "@/server/hosts/inventory-events";
import { log } from "@/server/core/log";

/** Inventory and last-seen time are written at most this often while nothing changes. */
const PERSIST_EVERY_MS = 60_000;
/** Last-seen writes due within this long are written together (agents report at their own offsets of the second). */
const SEEN_BATCH_MS = 5000;

/**
 * What the hosts' live readings leave in the database: a changed inventory
 * (versions, GPUs) at once, otherwise at most once a minute per host, and
 * then only the last-seen times, batched across hosts. Never a write per
 * reading; one write at a time per host, in order.
 */
export function createHostPersistence(now: () => number = Date.now) {
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
    // The first write after a start counts too (the layout may have changed while the server was down): listeners act only on what is gone, once.
    announceInventoryChanged({ hostId, at: new Date(snapshot.sampledAt) });
  }

  return {
    /** A live reading of `host`; `force`: its inventory changed (write now, not within the minute). */
    persist(host: RegisteredHost, snapshot: Snapshot, force: boolean): void {
      const at = now();
      if (!force && at - (lastPersisted.get(host.id) ?? 0) < PERSIST_EVERY_MS) return;
      lastPersisted.set(host.id, at);
      const previous = persisting.get(host.id) ?? Promise.resolve();
      const next = previous
        .then(() => write(host.id, snapshot))
        .catch((error: unknown) => log.error(`could not record inventory of ${host.name}: ${String(error)}`));
      persisting.set(host.id, next);
    },
    /** Writes what is pending now and waits for it (shutdown, tests). */
    async flush(): Promise<void> {
      await Promise.all(persisting.values());
      await writeSeen();
    },
  };
}
