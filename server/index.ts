import { createServer } from "node:http";
import { describeListenError } from "@/server/http/listen-error";
import { untilAnswering } from "@/server/http/until-answering";
import next from "next";
import { Server } from "socket.io";
import { AGENT_NAMESPACE, LIVE_NAMESPACE } from "@/lib/live/live";
import type { LiveClientToServer, LiveServerToClient } from "@/lib/live/live-events";
import type { Snapshot } from "@/lib/domain/snapshot";
import { resolveLocalAgentMode, startLocalAgents } from "@/server/fleet/local-agents";
import { alertConfigFromEnv } from "@/server/alerts/alert-config";
import { attachAlertsLive } from "@/server/alerts/alerts-live";
import { listOpenAlertsFor } from "@/server/alerts/alert-queries";
import { firstAdminCommand } from "@/server/auth/first-admin";
import { stampClientHeaders } from "@/server/auth/request-origin";
import { countUsers } from "@/server/auth/users";
import { ensureProductionBuild } from "@/server/core/build";
import { startCluster } from "@/server/cluster/start-cluster";
import { loadHostDownloads } from "@/server/downloads/host-downloads";
import { disconnectDb } from "@/server/core/db";
import { migrateDatabase } from "@/server/core/migrate";
import { describeDatabase, type Env } from "@/server/core/env";
import { attachAgentEndpoint } from "@/server/fleet/agent-endpoint";
import { FleetState } from "@/server/fleet/fleet-state";
import { createIngest } from "@/server/fleet/ingest";
import { AcceptedReadings } from "@/server/fleet/accepted-readings";
import { fillSimulatedFleetHistory } from "@/server/history/demo-history";
import { startDemoStory } from "@/server/demo/demo-story";
import { demoEnded } from "@/server/demo/demo-choice";
import { watchDemoChoice } from "@/server/demo/watch-demo-choice";
import { simulatedFleet } from "@/host/collector/simulated/simulated-source";
import { startHistory } from "@/server/history/history-service";
import type { RegisteredHost } from "@/server/hosts/host-registry";
import { guardRequest } from "@/server/http/request-guard";
import { attachLiveEndpoint } from "@/server/live/live-endpoint";
import { setLiveNamespace } from "@/server/access/live-revocation";
import { authenticateLiveViewer } from "@/server/live/live-viewer";
import { startOpenAlertCount } from "@/server/alerts/open-alert-count";
import { startBookingFeed } from "@/server/bookings/views/booking-feed";
import { startWaitlistRunner } from "@/server/waitlist/waitlist-runner";
import { listenForBookingChanges, startMisuseNotices } from "@/server/notifications/booking-notices";
import { startBookingReminders } from "@/server/notifications/booking-reminders";
import { startMailWorker } from "@/server/notifications/mail-worker";
import { smtpMailer } from "@/server/notifications/mailer";
import { attachPersonNotices } from "@/server/notifications/notify-person";
import { setRuntime } from "@/server/runtime/runtime";
import { liveGpuSource } from "@/server/runtime/live-source";
import { plugSingleSignOn } from "@/server/main/sign-in";
import { startSlurm } from "@/server/main/start-slurm";
import { startTick } from "@/server/main/start-tick";
import type { TickState } from "@/server/tick/tick-view";
import { log } from "@/server/core/log";
import { repoRoot } from "@/server/core/paths";

export interface StartOptions {
  env: Env;
  dev?: boolean;
}

/**
 * gpudesk's one process: HTTP with Next.js and socket.io on the same port,
 * the live fleet in memory, and the embedded agents.
 */
export async function startServer({ env, dev = false }: StartOptions): Promise<{ url: string; close: () => Promise<void> }> {
  plugSingleSignOn();
  await migrateDatabase(env.DATABASE_URL, repoRoot);
  // With GPUDESK_SLURM_URL: a Slurm older than 25.05 stops the start here, with one line saying why.
  const slurm = await startSlurm(env);
  if (!dev) await ensureProductionBuild(repoRoot);
  const downloads = await loadHostDownloads(repoRoot);

  // The lab was chosen over the demo (server/demo/demo-choice.ts): the simulated fleet never starts again here.
  const demoOver = await demoEnded();
  const wantedMode = resolveLocalAgentMode(env.GPUDESK_LOCAL_AGENT, env.GPUDESK_NVIDIA_SMI);
  const localMode = demoOver && wantedMode === "simulated" ? "off" : wantedMode;
  if (localMode !== wantedMode) log.info("this server is the lab (the demo ended): the simulated fleet stays off");
  const fleet = new FleetState({
    offlineAfterMs: Math.max(env.GPUDESK_OFFLINE_AFTER_MS, 3 * env.GPUDESK_SAMPLE_INTERVAL_MS),
    simulated: localMode === "simulated",
  });
  // Usage history: minute rollups of every accepted snapshot, written in batches; the tick brings them each second's readings.
  const history = startHistory({
    flushEveryMs: env.GPUDESK_ROLLUP_FLUSH_SECONDS * 1000,
    minuteDays: env.GPUDESK_HISTORY_MINUTE_DAYS,
    hourDays: env.GPUDESK_HISTORY_HOUR_DAYS,
  });
  // Set once the cluster is up (below, before any agent can connect).
  let forwardSnapshot: ((host: RegisteredHost, snapshot: Snapshot) => void) | undefined;
  // This instance's agents' readings, for the tick's view (relayed ones feed the fleet only).
  const readings = new AcceptedReadings();
  const ingest = createIngest(fleet, Date.now, (host, snapshot) => {
    readings.add(host, snapshot);
    forwardSnapshot?.(host, snapshot);
  });

  const app = next({ dev, dir: repoRoot, hostname: env.HOST, port: env.PORT });
  await app.prepare();
  const handleRequest = app.getRequestHandler();
  const handleUpgrade = app.getUpgradeHandler();

  const httpServer = createServer((req, res) => {
    // better-auth rate-limits by client address and marks cookies Secure by scheme; it reads
    // both from headers that only this server may set.
    stampClientHeaders(req, env.GPUDESK_TRUST_PROXY);
    if (guardRequest(req, res)) return;
    void handleRequest(req, res);
  });
  // A client (a reverse proxy, the CLI, a script's HTTP pool) reuses an idle connection for a while;
  // Node's 5 s default closed it under a request already on its way ("socket hang up"). Longer than
  // the usual proxies' 60 s, so that the proxy, not this server, closes first.
  httpServer.keepAliveTimeout = 65_000;
  httpServer.headersTimeout = 66_000;
  const io = new Server(httpServer, {
    maxHttpBufferSize: env.GPUDESK_MAX_AGENT_MESSAGE_BYTES,
    serveClient: false,
    perMessageDeflate: env.GPUDESK_SOCKET_DEFLATE,
    // Next's own websocket (hot reload in dev) shares the port.
    destroyUpgrade: false,
  });
  httpServer.on("upgrade", (req, socket, head) => {
    if (!req.url?.startsWith("/socket.io/")) void handleUpgrade(req, socket, head);
  });
  // With REDIS_URL: the Redis adapter (before the namespaces are used), the fleet relay and the leader lock.
  const cluster = await startCluster({
    redisUrl: env.REDIS_URL,
    prefix: env.GPUDESK_REDIS_PREFIX,
    leaderTtlMs: env.GPUDESK_LEADER_TTL_MS,
    io,
    fleet,
    agentNamespace: io.of(AGENT_NAMESPACE),
    disconnectLocalAgents: (hostId) => agents.disconnectAgents(hostId),
  });
  forwardSnapshot = cluster.forwardSnapshot;
  const agents = attachAgentEndpoint(io.of(AGENT_NAMESPACE) as never, fleet, ingest);
  // Bookings start and end by themselves on every open page: the feed wakes at each boundary.
  // Every instance keeps its own feed (it only reads); nothing is written when a booking ends.
  const bookingFeed = await startBookingFeed();
  const liveNamespace = io.of(LIVE_NAMESPACE) as ReturnType<Server<LiveClientToServer, LiveServerToClient>["of"]>;
  const openAlerts = startOpenAlertCount();
  // The GPU states in snapshots are the tick's; the tick is started just below, before any viewer can connect.
  let tickState: TickState | null = null;
  const live = attachLiveEndpoint(liveNamespace, fleet, {
    authenticate: authenticateLiveViewer,
    bookings: bookingFeed,
    gpuStates: () => tickState?.gpuStates() ?? {},
    openAlerts: openAlerts.current,
  });
  // The once-a-second pipeline: offline check, reconciliation, then its consumers in order
  // (alert rules, enforcement, webhook deliveries, idle release, the waitlist's wake on the leader; the
  // minute rollups and the live deltas everywhere).
  const tick = await startTick({
    fleet,
    readings,
    bookings: bookingFeed,
    alerts: { config: alertConfigFromEnv(env) },
    agentNamespace: io.of(AGENT_NAMESPACE) as never,
    publicUrl: env.GPUDESK_PUBLIC_URL,
    clusterWide: env.REDIS_URL !== undefined,
    rollups: history.tickConsumer,
    live: live.consumer,
    waitForLeadership: true,
  });
  tickState = tick.state;
  // Revoking a display, disabling a person, a role change or signing out closes their sockets (server/access/live-revocation.ts).
  setLiveNamespace(liveNamespace as never);
  const stopAlertsLive = attachAlertsLive(liveNamespace, { listOpen: (viewer) => listOpenAlertsFor(viewer), gpuStates: () => tick.state.gpuStates() });
  // Notices to a person (waitlist grants, idle release, bookings ending soon, …) are given on the leader; the adapter carries them to the person's pages elsewhere.
  const stopPersonNotices = attachPersonNotices(liveNamespace);
  // A booking changed by someone else is told to its person from the instance that changed it.
  const stopChangeNotices = listenForBookingChanges();
  setRuntime({ fleet, ingest, disconnectAgents: cluster.disconnectAgents, cluster: cluster.status, downloads, tick: tick.state, history });
  // What must run once across the cluster: here at once without REDIS_URL, on the lock's leader with it.
  cluster.jobs.add(tick.leaderJob);
  cluster.jobs.add({ name: "waitlist", start: () => startWaitlistRunner({ fleet, publicUrl: env.GPUDESK_PUBLIC_URL, bookings: bookingFeed }).stop });
  cluster.jobs.add({ name: "history retention", start: () => history.startPruning() });
  cluster.jobs.add({ name: "misuse notices", start: () => startMisuseNotices({ publicUrl: env.GPUDESK_PUBLIC_URL, liveFleet: liveGpuSource }) });
  cluster.jobs.add({ name: "booking reminders", start: () => startBookingReminders({ publicUrl: env.GPUDESK_PUBLIC_URL }).stop });
  const sendMail = smtpMailer();
  if (sendMail) cluster.jobs.add({ name: "mail", start: () => startMailWorker({ send: sendMail }).stop });
  if (slurm) cluster.jobs.add(slurm.leaderJob);
  await cluster.start();

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", (error) => void describeListenError(error, env.PORT, env.HOST).then(reject));
    httpServer.listen(env.PORT, env.HOST, resolve);
  });
  const url = `http://${env.HOST === "0.0.0.0" ? "localhost" : env.HOST}:${env.PORT}`;

  const agentsStartedAt = Date.now();
  const localAgents = await startLocalAgents({
    mode: localMode,
    nvidiaSmiPath: env.GPUDESK_NVIDIA_SMI,
    intervalMs: env.GPUDESK_SAMPLE_INTERVAL_MS,
    seed: env.GPUDESK_SIM_SEED,
    gpuCount: env.GPUDESK_SIM_GPUS,
    simTime: env.GPUDESK_SIM_TIME,
    fleet,
    ingest,
  });
  // The demo fleet tells its story with demo accounts and bookings; they exist before any demo history names them.
  if (localMode === "simulated" && env.GPUDESK_SIM_GPUS === undefined) {
    await startDemoStory(simulatedFleet({ seed: env.GPUDESK_SIM_SEED }), env.GPUDESK_SIM_SEED, env.GPUDESK_SIM_TIME);
  }
  // Stopped once: by choosing the lab, or at shutdown.
  let agentsStopped: Promise<void> | null = null;
  const stopLocalAgents = () => (agentsStopped ??= localAgents.stop());
  // Choosing the lab (the page, or `gpudesk demo off` from a shell) stops the simulated fleet while the server runs.
  const stopWatchingDemo =
    localMode === "simulated"
      ? watchDemoChoice(async () => {
          await stopLocalAgents();
          for (const host of fleet.current().hosts) if (host.simulated) fleet.removeHost(host.id);
          fleet.endSimulation();
        })
      : async () => {};
  // "Ready" once a request gets its answer, not when the port is open (the demo history below starts after it).
  if (await untilAnswering(env.PORT, env.HOST)) {
    log.info(`gpudesk ready on ${url} (${dev ? "development" : "production"}, database ${describeDatabase(env.DATABASE_URL)})`);
  } else {
    log.warn(`gpudesk listens on ${url} but did not answer its own health check (${url}/api/health) within 2 minutes`);
  }
  if ((await countUsers()) === 0) log.info(`no account yet; create the first admin with: ${firstAdminCommand(env, repoRoot)}`);
  const stopDemoHistory = new AbortController();
  const demoHistory = startDemoHistory(env, localMode, agentsStartedAt, stopDemoHistory.signal);

  return {
    url,
    async close() {
      // No tick after this: its consumers stop below, the leader's with the cluster's jobs.
      await tick.tick.stop();
      await stopWatchingDemo();
      live.stop();
      setLiveNamespace(undefined);
      openAlerts.stop();
      stopAlertsLive();
      stopPersonNotices();
      stopChangeNotices();
      await cluster.close();
      slurm?.stop();
      await tick.stop();
      bookingFeed.stop();
      await stopLocalAgents();
      await ingest.flush();
      stopDemoHistory.abort();
      await demoHistory;
      await history.close(readings.take());
      await new Promise<void>((resolve) => io.close(() => resolve()));
      await cluster.disconnect();
      await app.close();
      await disconnectDb();
    },
  };
}

/** `--demo-history`: synthetic usage of the simulated fleet, filled in the background while the server runs. */
async function startDemoHistory(env: Env, localMode: string, untilMs: number, signal: AbortSignal): Promise<void> {
  if (env.GPUDESK_DEMO_HISTORY === undefined) return;
  if (localMode !== "simulated") {
    log.warn("--demo-history only fills history for the simulated fleet; this server reads real GPUs, so it is ignored");
    return;
  }
  // Up to the moment the embedded agents started: their readings are the real minutes from then on.
  await fillSimulatedFleetHistory({
    seed: env.GPUDESK_SIM_SEED,
    gpuCount: env.GPUDESK_SIM_GPUS,
    spanMs: env.GPUDESK_DEMO_HISTORY,
    nowMs: untilMs,
    signal,
    report: (line) => log.info(line),
  }).catch(
    (error: unknown) => log.error(`demo history failed: ${error instanceof Error ? error.message : String(error)}`),
  );
}
