import type { Namespace } from "socket.io";
import type { AgentClientToServer, AgentServerToClient } from "@/lib/domain/agent-protocol";
import type { LiveBooking } from "@/lib/live/live";
import type { AlertConfig } from "@/server/alerts/alert-config";
import type { AlertPersistence } from "@/server/alerts/alert-monitor";
import { alertRulesConsumer } from "@/server/alerts/alert-rules-consumer";
import { idleReleaseConsumer } from "@/server/idle-release/idle-release-consumer";
import { UserDirectory, type PersonDirectory } from "@/server/attribution/user-directory";
import { attachEnforcementChannel } from "@/server/enforcement/enforcement-channel";
import { enforcementConsumer } from "@/server/enforcement/enforcement-consumer";
import { recordEnforcementReport } from "@/server/enforcement/enforcement-loop";
import { notificationsConsumer } from "@/server/notifications/notifications-consumer";
import type { AcceptedReading } from "@/server/fleet/accepted-readings";
import { Tick, type TickFleet } from "@/server/tick/tick";
import { unitsFreedConsumer } from "@/server/waitlist/units-freed";
import type { TickConsumer } from "@/server/tick/tick-view";
import { slurmConnection } from "@/server/slurm/slurm-connection";
import { EMPTY_SLURM_CALENDAR } from "@/server/slurm/slurm-calendar";

type AgentNamespace = Namespace<AgentClientToServer, AgentServerToClient>;

export interface StartTickOptions {
  fleet: TickFleet;
  /** This instance's agents' readings since the last tick (server/fleet/accepted-readings.ts), for the view. */
  readings?: { take(): readonly AcceptedReading[] };
  /** Active and upcoming bookings, and word when they change (server/bookings/views/booking-feed.ts). */
  bookings: { current(): readonly LiveBooking[]; subscribe(listener: (bookings: LiveBooking[]) => void): () => void };
  alerts: { config: AlertConfig; persistence?: AlertPersistence; readInventory?: boolean };
  /** The `/agent` namespace: enforcement requests go out and reports come back there. */
  agentNamespace: AgentNamespace;
  /** Several instances share socket.io through Redis: enforcement reaches agents connected to the others too. */
  clusterWide?: boolean;
  /** Links in webhook messages. */
  publicUrl?: string;
  /** The minute rollups of this instance's agents (server/history/): the readings of the second, who booked and who ran. */
  rollups?: TickConsumer;
  /** The live deltas to this instance's viewers (server/live/live-endpoint.ts): last, with what the others changed. */
  live?: TickConsumer;
  /** Default: the people with a Unix login, from the database. */
  directory?: PersonDirectory & { start?(): Promise<void>; stop?(): Promise<void> | void; refresh?(): Promise<void> };
  tickMs?: number;
  now?: () => number;
  /**
   * True: the leader-only consumers wait for `leaderJob` to be started by
   * the cluster (server/cluster/). Default: they start at once (one instance, tests).
   */
  waitForLeadership?: boolean;
}

/**
 * The server's once-a-second pipeline, assembled: the tick (offline check,
 * reconciliation with the user directory) and its consumers, in the order
 * each tick reaches them. To add a consumer: write it in its own
 * `server/<capability>/` folder as a `TickConsumer` (server/tick/tick-view.ts)
 * and add one line to the list below. What one consumer needs of an earlier
 * one travels in the view's `findings`, never by reaching into it here.
 * Limits are not a consumer: they are counted from stored bookings inside
 * the booking transaction (server/bookings/rules/, docs/development.md).
 */
export async function startTick(options: StartTickOptions) {
  const directory = options.directory ?? new UserDirectory();
  await directory.start?.();
  const stopBookings = options.bookings.subscribe(() => void directory.refresh?.());
  const channel = attachEnforcementChannel(options.agentNamespace as never, recordEnforcementReport, { clusterWide: options.clusterWide });

  const idleRelease = idleReleaseConsumer({ alertHoldMinutes: Math.ceil(options.alerts.config.holdMs.idle_booking / 60_000), publicUrl: options.publicUrl });
  // The idle-booking alert's clock: idle release's standings of its last pass, read where both run (the leader).
  const alerts = alertRulesConsumer({ ...options.alerts, idleStandings: idleRelease.standings });
  const enforcement = enforcementConsumer({ channel, loginOf: (id) => directory.loginOf(id) });
  const consumers: TickConsumer[] = [
    alerts, // leader: judges the rules, keeps the Alert table in step; finds the open alerts
    enforcement, // leader: acts on the conflicts the rules hold open
    notificationsConsumer({ publicUrl: options.publicUrl }), // leader: webhook deliveries of alert changes
    idleRelease, // leader: warns and releases idle bookings, from stored minutes; its standings are the alert rules' idle clock (above)
    unitsFreedConsumer(), // leader: a unit that became free wakes the waitlist
    ...(options.rollups ? [options.rollups] : []), // everywhere: the second's readings, who booked and who ran, per GPU-minute
    ...(options.live ? [options.live] : []), // everywhere: what changed, to this instance's viewers
  ];
  // Slurm's jobs and foreign reservations hold units in the availability rule (the connection's calendar, refreshed per pass).
  const slurm = { current: () => slurmConnection()?.calendar ?? EMPTY_SLURM_CALENDAR };
  const tick = new Tick({ fleet: options.fleet, readings: options.readings, bookings: options.bookings, directory, consumers, now: options.now, slurm });
  await tick.start(options.tickMs);
  let stopLeaderJob: (() => Promise<void> | void) | null = options.waitForLeadership ? null : await tick.leaderJob.start();

  return {
    tick,
    /** Every leader-only consumer as one job, for the cluster's leader (server/cluster/leader-jobs.ts). */
    leaderJob: tick.leaderJob,
    /** The alert rules' monitor of this term of leadership; null while another instance leads. */
    get monitor() {
      return alerts.monitor;
    },
    /** What the running server's routes ask (server/runtime/runtime.ts). */
    state: {
      gpuStates: () => tick.gpuStates(),
      agentAllowsEnforcement: (hostId: string) => channel.capable(hostId),
      enforcementSettingsChanged: () => enforcement.settingsChanged(),
    },
    async stop(): Promise<void> {
      await tick.stop();
      stopBookings();
      await directory.stop?.();
      await channel.stop();
      await stopLeaderJob?.();
      stopLeaderJob = null;
    },
  };
}

export type RunningTick = Awaited<ReturnType<typeof startTick>>;
