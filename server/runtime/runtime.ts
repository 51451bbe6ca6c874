import type { ClusterStatus } from "@/server/cluster/start-cluster";
import type { HostDownloads } from "@/server/downloads/install-script";
import type { FleetState } from "@/server/fleet/fleet-state";
import type { Ingest } from "@/server/fleet/ingest";
import type { HistoryStats } from "@/server/history/history-service";
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
  /** The usage history's counters, for /metrics (server/history/history-service.ts). */
  history?: { stats(): HistoryStats };
}

/** The leader's workers that a route wakes after queueing their work. */
export type WorkerName = "webhook deliveries" | "mail";

// The custom server and Next's route bundles load separate copies of modules;
// the running server is shared through globalThis so that both see one fleet
// (docs/development.md lists the other holders Next forces).
interface Shared {
  runtime?: Runtime;
  /** Set while the worker runs in this process (on the leader): a route queues work in the database, then wakes it. */
  wakers: Map<WorkerName, () => void>;
}
const holder = globalThis as unknown as { __gpudeskRuntime?: Shared };
const shared = (): Shared => (holder.__gpudeskRuntime ??= { wakers: new Map() });

export function setRuntime(runtime: Runtime): void {
  shared().runtime = runtime;
}

/** The running server's live state, or null outside one (tests of routes, the CLI). */
export function runningServer(): Runtime | null {
  return shared().runtime ?? null;
}

/** The running server's live state; throws outside a running server. */
export function runtime(): Runtime {
  const running = shared().runtime;
  if (!running) throw new Error("gpudesk runtime is not started");
  return running;
}

/** A worker that started in this process answers `wakeWorker(name)`; returns how to withdraw it (when it stops). */
export function offerWaker(name: WorkerName, wake: () => void): () => void {
  const { wakers } = shared();
  wakers.set(name, wake);
  return () => {
    if (wakers.get(name) === wake) wakers.delete(name);
  };
}

/** Asks the worker to look for its queued work now; nothing where it does not run (another instance leads, mail is off). */
export function wakeWorker(name: WorkerName): void {
  shared().wakers.get(name)?.();
}
