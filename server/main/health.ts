import { createHash } from "node:crypto";
import type { Principal } from "@/server/access/principal";
import type { ClusterStatus } from "@/server/cluster/start-cluster";
import type { Runtime } from "@/server/runtime/runtime";
import { unreadableBlockCounts } from "@/server/minutes/unreadable-blocks";
import { slurmConnection } from "@/server/slurm/slurm-connection";
import { can } from "@/server/access/permissions";

/**
 * What /api/health tells: liveness and the cluster role for anyone (load
 * balancers ask without credentials); the instance's name, which holds the
 * server's hostname and process id, only to admins. Others see a stable
 * opaque tag that still tells instances apart.
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
  };
}

function redact(cluster: ClusterStatus): ClusterStatus {
  return { ...cluster, instance: createHash("sha256").update(cluster.instance).digest("hex").slice(0, 12) };
}
