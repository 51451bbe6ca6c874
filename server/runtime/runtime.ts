import type { ClusterStatus } from "@/server/cluster/start-cluster";
import type { HostDownloads } from "@/server/downloads/install-script";
import type { FleetState } from "@/server/fleet/fleet-state";
import type { Ingest } from "@/server/fleet/ingest";
import type { TickState } from "@/server/tick/tick-view";

export interface Runtime {
  fleet: FleetState;
  ingest: Ingest;
  /** Closes the agent connections of a host (its token was rotated or the host removed). */
  disconnectAgents: (hostId: string) => void;
  /** This instance's place in the cluster (several instances share REDIS_URL); /api/health shows it. */
  cluster?: () => ClusterStatus;
  /** The host bundle and installer served at /downloads/gpudesk.mjs and /install.sh. */
  downloads?: HostDownloads;
  /** The once-a-second tick (server/tick/): the GPU states now, and enforcement's link to the agents. */
  tick?: TickState;
}

// The custom server and Next's route bundles load separate copies of modules;
// the live state is shared through globalThis so that both see one fleet.
const shared = globalThis as unknown as { __gpudeskRuntime?: Runtime };

export function setRuntime(runtime: Runtime): void {
  shared.__gpudeskRuntime = runtime;
}

/** The running server's live state, or null outside one (tests of routes, the CLI). */
export function runningServer(): Runtime | null {
  return shared.__gpudeskRuntime ?? null;
}

/** The running server's live state; throws outside a running server. */
export function runtime(): Runtime {
  if (!shared.__gpudeskRuntime) throw new Error("gpudesk runtime is not started");
  return shared.__gpudeskRuntime;
}
