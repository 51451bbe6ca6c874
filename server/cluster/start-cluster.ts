import { randomBytes } from "node:crypto";
import os from "node:os";
import type { RedisOptions } from "ioredis";
import type { Namespace, Server } from "socket.io";
import type { Snapshot } from "@/lib/domain/snapshot";
import { FleetRelay, type RelayMessage } from "@/server/cluster/fleet-relay";
import { LeaderJobs } from "@/server/cluster/leader-jobs";
import { LeaderLock } from "@/server/cluster/leader-lock";
import type { FleetState } from "@/server/fleet/fleet-state";
import { log } from "@/server/core/log";
import { announceBookingsChanged, onBookingsChanged } from "@/server/bookings/store/booking-events";

const FLEET_EVENT = "gpudesk:fleet";
const BOOKINGS_EVENT = "gpudesk:bookings";
const CONNECT_TIMEOUT_MS = 10_000;

/** Who this instance is and what it does in the cluster: /api/health shows it. */
export interface ClusterStatus {
  instance: string;
  /** `single`: no REDIS_URL, this process does everything; `redis`: one of several instances. */
  mode: "single" | "redis";
  /** This instance runs the background jobs now. */
  leader: boolean;
  jobs: string[];
}

export interface Cluster {
  readonly instanceId: string;
  /** The jobs that run on one instance only (here at once without REDIS_URL). */
  readonly jobs: LeaderJobs;
  status(): ClusterStatus;
  /** The ingest hook: readings of this instance's agents, for the other instances' live state. */
  forwardSnapshot(host: { id: string; name: string; simulated: boolean }, snapshot: Snapshot): void;
  /** Closes the agent connections of a host on every instance. */
  disconnectAgents(hostId: string): void;
  /** Starts contending for the background jobs (call once everything is registered). */
  start(): Promise<void>;
  /** Stops the jobs here and hands the lock over (another instance takes the jobs at once). */
  close(): Promise<void>;
  /** Closes the Redis connections; after socket.io is closed (its adapter uses them until then). */
  disconnect(): Promise<void>;
}

export interface StartClusterOptions {
  redisUrl: string | undefined;
  /** Keys and channels in Redis start with this, so that several gpudesk deployments can share one Redis. */
  prefix: string;
  leaderTtlMs: number;
  io: Server;
  fleet: FleetState;
  agentNamespace: Namespace;
  /** Closes this instance's agent connections of a host (server/fleet/agent-endpoint.ts). */
  disconnectLocalAgents: (hostId: string) => void;
}

const hostRoom = (hostId: string) => `host:${hostId}`;

/**
 * Several instances behind a load balancer: with a Redis URL, socket.io
 * rooms and broadcasts go through the Redis adapter, the live fleet is
 * relayed between instances (server/cluster/fleet-relay.ts), and the
 * background jobs run on the leader of a lock in Redis. Without one,
 * this process is the whole cluster and leads from the start.
 *
 * Call before the namespaces are used: the adapter must be in place first.
 */
export async function startCluster(options: StartClusterOptions): Promise<Cluster> {
  const instanceId = `${os.hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  const jobs = new LeaderJobs();
  if (!options.redisUrl) return singleInstance(instanceId, jobs, options);
  // Loaded only with a Redis URL: a single instance never needs them.
  const [{ Redis }, { createAdapter }] = await Promise.all([import("ioredis"), import("@socket.io/redis-adapter")]);

  const where = redactedUrl(options.redisUrl);
  const connect = async (name: string, extra: RedisOptions = {}) => {
    const client = new Redis(options.redisUrl!, { lazyConnect: true, connectionName: `gpudesk-${name}`, ...extra });
    let failing = false;
    client.on("error", (error: Error) => {
      if (!failing) log.warn(`cluster: Redis (${name}) at ${where}: ${error.message}`);
      failing = true;
    });
    client.on("ready", () => {
      if (failing) log.info(`cluster: Redis (${name}) at ${where} is back`);
      failing = false;
    });
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timed out")), CONNECT_TIMEOUT_MS).unref()),
    ]).catch((error: unknown) => {
      client.disconnect();
      throw new Error(`cannot reach Redis at ${where} (REDIS_URL): ${error instanceof Error ? error.message : String(error)}`);
    });
    return client;
  };
  const pub = await connect("pub");
  const sub = await connect("sub");
  // The lock's commands must fail at once while Redis is away, not wait in a queue past the lease.
  const lockClient = await connect("lock", { enableOfflineQueue: false, commandTimeout: Math.max(500, Math.floor(options.leaderTtlMs / 3)) });

  options.io.adapter(createAdapter(pub, sub, { key: `${options.prefix}:socket.io` }));
  const { io, fleet } = options;

  const relay = new FleetRelay({
    fleet,
    instanceId,
    transport: {
      send(message: RelayMessage) {
        // While Redis is away, readings are dropped rather than queued without bound: the other
        // instances see the hosts go silent (offline), which is what they are to them.
        if (pub.status === "ready") io.serverSideEmit(FLEET_EVENT, message);
      },
      listen(handler) {
        io.on(FLEET_EVENT, handler);
        return () => void io.off(FLEET_EVENT, handler);
      },
    },
  });

  // A booking made on one instance refreshes the booking feeds and wakes the waitlist on every instance; its
  // notifications were told where it was made, so the others hear only that something changed elsewhere.
  const stopBookingsOut = onBookingsChanged((event) => {
    if (event.kind !== "elsewhere") io.serverSideEmit(BOOKINGS_EVENT, instanceId);
  });
  const bookingsIn = () => announceBookingsChanged({ kind: "elsewhere" });
  io.on(BOOKINGS_EVENT, bookingsIn);

  // Rooms per host, so that a token rotated on one instance closes the agent's connection wherever it is.
  options.agentNamespace.on("connection", (socket) => {
    const host = (socket.data as { host?: { id: string } }).host;
    if (host) void socket.join(hostRoom(host.id));
  });

  const lock = new LeaderLock({
    redis: lockClient,
    key: `${options.prefix}:leader`,
    owner: instanceId,
    ttlMs: options.leaderTtlMs,
    onChange: (leader) => void jobs.setLeader(leader),
  });
  log.info(`cluster: instance ${instanceId} joined through Redis at ${where}`);

  return {
    instanceId,
    jobs,
    status: () => ({ instance: instanceId, mode: "redis", leader: jobs.isLeader, jobs: jobs.runningJobs() }),
    forwardSnapshot: (host, snapshot) => relay.forwardSnapshot(host, snapshot),
    disconnectAgents(hostId) {
      options.agentNamespace.in(hostRoom(hostId)).disconnectSockets(true);
    },
    start: () => lock.start(),
    async close() {
      await lock.stop();
      await jobs.settled();
      relay.stop();
      stopBookingsOut();
      io.off(BOOKINGS_EVENT, bookingsIn);
    },
    async disconnect() {
      await Promise.all([pub, sub, lockClient].map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}

function singleInstance(instanceId: string, jobs: LeaderJobs, options: StartClusterOptions): Cluster {
  return {
    instanceId,
    jobs,
    status: () => ({ instance: instanceId, mode: "single", leader: jobs.isLeader, jobs: jobs.runningJobs() }),
    forwardSnapshot: () => undefined,
    disconnectAgents: options.disconnectLocalAgents,
    start: () => jobs.setLeader(true),
    async close() {
      await jobs.setLeader(false);
    },
    disconnect: async () => undefined,
  };
}

/** The URL without its password, for logs and errors. */
function redactedUrl(text: string): string {
  const url = new URL(text);
  if (url.password) url.password = "***";
  return url.toString();
}
