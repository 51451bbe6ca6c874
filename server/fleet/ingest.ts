import type { AgentSamplesReply } from "@/lib/domain/agent-protocol";
import type { Snapshot } from "@/lib/domain/snapshot";
import { checkReading } from "@/server/fleet/check-reading";
import type { FleetState } from "@/server/fleet/fleet-state";
import { createHostPersistence } from "@/server/hosts/host-persistence";
import { findGpuOwners, type RegisteredHost } from "@/server/hosts/host-registry";
import { log } from "@/server/core/log";

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
 * What a host reports is stored by server/hosts/host-persistence.ts.
 */
export function createIngest(
  fleet: FleetState,
  now: () => number = Date.now,
  /** Called with every accepted snapshot, live or replayed, in order (the tick's readings of the second, for the usage history; the cluster's relay). */
  onAccepted?: (host: RegisteredHost, snapshot: Snapshot) => void,
) {
  const counters: IngestCounters = { acceptedSnapshots: 0, rejectedSnapshots: 0, rejectedMessages: 0, droppedByAgents: 0 };
  const hosts = createHostPersistence(now);

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
      if (result.live) hosts.persist(host, snapshot, result.inventoryChanged);
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

  return { ingestBatch, counters, flush: hosts.flush };
}

export type Ingest = ReturnType<typeof createIngest>;
