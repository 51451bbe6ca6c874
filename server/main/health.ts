import { createHash } from "node:crypto";
import type { Principal } from "@/server/access/principal";
import type { ClusterStatus } from "@/server/cluster/start-cluster";
import type { Runtime } from "@/server/runtime/runtime";
import { unreadableBlockCounts } from "@/server/minutes/unreadable-blocks";
import { slurmConnection, type SlurmClusterView } from "@/server/slurm/slurm-connection";
import { can } from "@/server/access/permissions";

/**
 * What /api/health tells: liveness and the cluster role for anyone (load
 * balancers ask without credentials); the instance's name, which holds the
 * server's hostname and process id, only to admins. Others see a stable
 * opaque tag that still tells instances apart. With Slurm underneath,
 * `slurm` is its state for anyone (up, down, refused; version; last pass;
 * node counts); its address, the reason and the node names only to admins.
 */
export function healthReport(runtime: Runtime, principal: Principal | null) {
  const seesName = can.seeInstanceName(principal);
  const cluster = runtime.cluster?.();
  return {
    ok: true,
    gpus: runtime.fleet.gpuCount,
    ingest: runtime.ingest.counters,
    /** Minute blocks that could not be read: met by a read and not yet set aside, and set aside by this process (server/minutes/unreadable-blocks.ts). */
    minuteBlocks: unreadableBlockCounts(),
    cluster: cluster && (seesName ? cluster : redact(cluster)),
    slurm: slurmHealth(slurmConnection()?.view() ?? null, seesName),
  };
}

function slurmHealth(view: SlurmClusterView | null, admin: boolean) {
  if (!view) return null;
  const { url, message, nodes, ...state } = view;
  const counts = { ...state, nodes: { mapped: nodes.mapped.length, unmapped: nodes.unmapped.length } };
  return admin ? { ...counts, url, message, nodeNames: nodes } : counts;
}

function redact(cluster: ClusterStatus): ClusterStatus {
  return { ...cluster, instance: createHash("sha256").update(cluster.instance).digest("hex").slice(0, 12) };
}
