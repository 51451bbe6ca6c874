import type { Namespace } from "socket.io";
import type { AgentClientToServer, AgentServerToClient } from "@/lib/agent-protocol";
import type { FleetDelta, FleetSnapshot } from "@/lib/live";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live-events";
import type { AlertConfig } from "@/server/alerts/alert-config";
import { AlertMonitor } from "@/server/alerts/alert-monitor";
import { listOpenAlertsFor } from "@/server/alerts/alert-queries";
import { attachAlertsLive, type AlertsLiveOptions } from "@/server/alerts/alerts-live";
import { setAlertsRuntime } from "@/server/alerts/alerts-runtime";
import { activeBookingsByGpu, Reconciler } from "@/server/attribution/reconcile-fleet";
import { UserDirectory } from "@/server/attribution/user-directory";
import { sessionPrincipal } from "@/server/auth/authenticate";
import { authenticateToken } from "@/server/auth/tokens";
import type { LeaderJob } from "@/server/cluster/leader-jobs";
import { attachEnforcementChannel } from "@/server/enforcement/enforcement-channel";
import { EnforcementLoop, recordEnforcementReport } from "@/server/enforcement/enforcement-loop";
import type { FleetState } from "@/server/fleet/fleet-state";
import { log } from "@/server/log";
import { startNotifications } from "@/server/notifications/notifications";
import type { BookingsSource } from "@/server/reservations/booking-feed";

type AgentNamespace = Namespace<AgentClientToServer, AgentServerToClient>;
type LiveNamespace = Namespace<LiveClientToServer, LiveServerToClient>;

export interface StartAlertsOptions {
  fleet: FleetState;
  bookings: BookingsSource;
  config: AlertConfig;
  /** The `/agent` namespace: enforcement requests go out and reports come back there. */
  agentNamespace: AgentNamespace;
  /** Links in webhook messages. */
  publicUrl?: string;
  resolveViewer?: AlertsLiveOptions["resolveViewer"];
  now?: () => number;
  /**
   * True: the writing part (alert rules, enforcement, webhook deliveries)
   * waits for `leaderJob` to be started by the cluster (server/cluster/),
   * so that it runs on one instance only. Default: it starts at once.
   */
  waitForLeadership?: boolean;
  /** Several instances share socket.io through Redis: enforcement reaches agents connected to the others too. */
  clusterWide?: boolean;
}

/** Extra data for the `/live` endpoint: the GPU states in every snapshot and each tick's delta. */
export interface LiveExtras {
  snapshot(): Partial<FleetSnapshot>;
  /** Called once per live tick: reconciles, judges the alert rules, enforces; returns what changed. */
  tick(): Partial<FleetDelta> | null;
}

async function resolveLiveViewer({ headers, token }: { headers: Headers; token: string | null }) {
  const principal = token ? await authenticateToken(token) : await sessionPrincipal(headers);
  return principal?.kind === "user" ? principal.user : null;
}

/**
 * Reconciliation, alerts, notifications and enforcement, started together
 * by the server. The work happens on the live endpoint's tick (`live.tick`),
 * so that each delta carries the GPU states of the readings it carries.
 *
 * With several instances, every instance reconciles (the GPU states of its
 * own viewers, from the whole fleet it has), while the part that writes or
 * acts (the alert monitor, enforcement, webhook deliveries) runs only on
 * the leader, as `leaderJob`: each term starts from the alerts stored by
 * the previous leader.
 */
export async function startAlerts(options: StartAlertsOptions) {
  const now = options.now ?? Date.now;
  const directory = new UserDirectory();
  await directory.start();
  const stopBookings = options.bookings.subscribe(() => void directory.refresh());

  const reconciler = new Reconciler(() => options.bookings.current(), directory);
  const channel = attachEnforcementChannel(options.agentNamespace as never, recordEnforcementReport, { clusterWide: options.clusterWide });

  /** What runs on the leader only; null elsewhere. */
  let term: { monitor: AlertMonitor; enforcement: EnforcementLoop } | null = null;
  const leaderJob: LeaderJob = {
    name: "alerts, enforcement and webhook deliveries",
    async start() {
      const monitor = new AlertMonitor({ config: options.config });
      await monitor.inventory.load(now());
      await monitor.restore(now());
      const inventoryTimer = setInterval(() => void monitor.inventory.load(now()), 60_000);
      inventoryTimer.unref();
      const enforcement = new EnforcementLoop({ channel, loginOf: (id) => directory.loginOf(id) });
      await enforcement.start();
      const notifications = startNotifications({ publicUrl: options.publicUrl });
      term = { monitor, enforcement };
      return async () => {
        term = null;
        clearInterval(inventoryTimer);
        enforcement.stop();
        await notifications.stop();
        await monitor.idle();
      };
    },
  };
  let stopLeaderJob: (() => Promise<void> | void) | null = options.waitForLeadership ? null : await leaderJob.start();

  setAlertsRuntime({
    gpuStates: () => reconciler.current(),
    agentAllowsEnforcement: (hostId) => channel.capable(hostId),
    settingsChanged: () => void term?.enforcement.refresh(),
  });

  let failing = false;
  const live: LiveExtras = {
    snapshot: () => ({ gpuStates: reconciler.current() }),
    tick() {
      try {
        const nowMs = now();
        const { hosts, gpus } = options.fleet.current();
        const view = { hosts, gpus };
        const changed = reconciler.run(view, nowMs);
        if (term) {
          term.monitor.observe(view, reconciler.current(), activeBookingsByGpu(options.bookings.current(), nowMs), nowMs);
          term.enforcement.tick(nowMs, term.monitor.openAlerts().values(), reconciler.current(), gpus);
        }
        failing = false;
        return Object.keys(changed).length > 0 ? { gpuStates: changed } : null;
      } catch (error) {
        // One report per failure spell, not one per second.
        if (!failing) log.error(`reconciliation failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        failing = true;
        return null;
      }
    },
  };

  return {
    live,
    /** The alert monitor of this term of leadership; null while another instance leads. */
    get monitor(): AlertMonitor | null {
      return term?.monitor ?? null;
    },
    leaderJob,
    reconciler,
    /** Alerts on `/live`: rooms per viewer, the open alerts on connect, updates as they happen. */
    attachLive(namespace: LiveNamespace): () => void {
      return attachAlertsLive(namespace, {
        resolveViewer: options.resolveViewer ?? resolveLiveViewer,
        listOpen: (viewer) => listOpenAlertsFor(viewer),
        gpuStates: () => reconciler.current(),
      });
    },
    async stop(): Promise<void> {
      stopBookings();
      directory.stop();
      channel.stop();
      setAlertsRuntime(undefined);
      await stopLeaderJob?.();
      stopLeaderJob = null;
    },
  };
}
