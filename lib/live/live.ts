import type { GpuReconciliation, GpuState } from "@/lib/domain/attribution";
import type { GpuSample, ProcessInfo } from "@/lib/domain/snapshot";
import type { WallSlurmHold } from "@/lib/domain/slurm";

/**
 * What browsers hold of the live fleet. On the socket.io namespace `/live`
 * they receive a full snapshot on every (re)connect, then coalesced deltas
 * (new readings within about 100 ms, GPU states once a second), in the
 * compact form of lib/live/live-wire.ts; these are the shapes they expand to.
 * The snapshot is the truth; a client that misses deltas takes a new snapshot.
 */

export interface LiveHost {
  id: string;
  name: string;
  simulated: boolean;
  online: boolean;
  /** ISO time of the last sample from this host's agent, null if never seen. */
  lastSeenAt: string | null;
  driverVersion: string | null;
  cudaVersion: string | null;
  /** UUIDs in nvidia-smi index order. */
  gpuUuids: string[];
}

export interface LiveGpu extends GpuSample {
  hostId: string;
  hostName: string;
  /** ISO time of the sample these values come from. */
  sampledAt: string;
  processes: ProcessInfo[];
}

/** One point of a GPU's recent history (the detail page's charts, the sparklines). */
export interface GpuPoint {
  /** Milliseconds since the epoch. */
  t: number;
  util: number | null;
  memUsedMiB: number | null;
  powerW: number | null;
  tempC: number | null;
}

/**
 * A GPU's recent utilization in two columns, the snapshot's compact form of
 * GpuPoint[] (the sparklines draw nothing else): a snapshot holds 60 per GPU,
 * where whole points made 18 MB at 4,000 GPUs.
 */
export interface SparklineColumns {
  /** Sample times: the first in milliseconds since the epoch, each next one in milliseconds after the one before. */
  t: number[];
  /** Utilization (%) at each time; null where the reading had none. */
  util: (number | null)[];
}

export interface FleetSnapshot {
  serverTime: string;
  /** True when the embedded server runs the simulated fleet (no nvidia-smi here). */
  simulated: boolean;
  hosts: LiveHost[];
  gpus: LiveGpu[];
  /** Last 60 utilization points per GPU UUID, oldest first, for the sparklines (browsers expand them to GpuPoint[] with `pointsOfColumns`, lib/live/live-points.ts). */
  sparklines: Record<string, SparklineColumns>;
  /** Active and upcoming bookings; absent where the server has no booking feed. */
  bookings?: LiveBooking[];
  /** Each GPU's state, bookedBy and who runs on it (server/attribution); absent where the server does not reconcile. */
  gpuStates?: Record<string, GpuReconciliation>;
}

export interface FleetDelta {
  serverTime: string;
  /**
   * Hosts whose status, name, versions or inventory changed since the last
   * delta (whole entries). A new sample alone does not bring its host: the
   * host's lastSeenAt advances to the newest `sampledAt` of its GPUs here.
   */
  hosts: LiveHost[];
  /** GPUs with a newer sample since the last delta (latest values only). */
  gpus: LiveGpu[];
  /**
   * New history points per GPU UUID since the last delta, oldest first, only
   * for GPUs with more than their latest reading to add; for the others the
   * one new point is made from their entry in `gpus` (`deltaPointsOf` in
   * lib/live/live-points.ts).
   */
  points: Record<string, GpuPoint[]>;
  /** Hosts removed from the fleet. */
  removedHostIds: string[];
  /** GPUs whose state, bookedBy or attribution changed since the last delta (whole entries, replacing the held ones). */
  gpuStates?: Record<string, GpuReconciliation>;
}

/** A GPU's recent history as the server keeps it (the GPU scope's snapshot sends it as columns). */
export interface GpuHistory {
  uuid: string;
  /** Up to the last 15 minutes, oldest first. */
  points: GpuPoint[];
}

/**
 * A booking that holds GPUs now or will: who, which GPUs, [startsAt, endsAt).
 * Whether it is active follows from the times, so that a page shows a start
 * or an end on time even between two server messages.
 */
export interface LiveBooking {
  reservationId: string;
  hostId: string;
  hostName: string;
  /** In nvidia-smi index order. */
  /** A slice carries its GPU's UUID (`parentUuid`): a booking takes the silicon it shares (`sharesSilicon`). */
  gpus: { uuid: string; index: number; parentUuid?: string }[];
  bookedBy: { id: string; username: string; name: string };
  startsAt: string;
  endsAt: string;
  purpose: string;
  /** The team the booking is for; absent or null: none. */
  team?: string | null;
  /** Set while idle release's warning stands (server/idle-release/): the fleet card says "Idle since 12:05 — released at 14:05 unless used". */
  idleWarning?: { idleSince: string; releaseAt: string };
  /** A part of a booking across nodes: the booking's id and "2 × 4 H100, node 1 of 2"; absent on a booking of one host. */
  multiNode?: { id: string; partLabel: string };
}

/** The full list of active and upcoming bookings, sent whenever it changes or a booking starts or ends. */
export interface BookingsUpdate {
  serverTime: string;
  bookings: LiveBooking[];
}

/**
 * The display scope: what a wall screen (a display token, or `/display` in
 * a signed-in browser) receives on `/live`, and nothing more. No booking
 * purposes, user ids or logins, command lines, container or booking
 * ids, no waitlist: a screen in a corridor shows who holds a GPU and how
 * busy it is. Numbers are rounded to what the screen shows.
 */
export interface DisplayGpu {
  uuid: string;
  hostId: string;
  /** nvidia-smi index. */
  index: number;
  /** The model as nvidia-smi names it ("NVIDIA H100 80GB HBM3"). */
  model: string;
  /** The one availability rule's state (lib/domain/attribution.ts GPU_STATES). */
  state: GpuState;
  /** Integer %. */
  utilizationPct: number | null;
  memoryUsedMiB: number | null;
  memoryTotalMiB: number | null;
  /** Integer °C. */
  temperatureC: number | null;
  /** Display name of the person whose booking holds the GPU now; null when nobody does. */
  bookedByName: string | null;
  /** ISO end of that booking; null when nobody holds the GPU. */
  bookedUntil: string | null;
  /**
   * In use with no process visible (lib/domain/gpu-availability.ts, `detectUnseenUse`);
   * absent otherwise. A fixed field: a change sends the whole entry again, so
   * a screen built before it simply ignores it.
   */
  unseen?: true;
  /**
   * Display name(s) of who runs on a GPU in use without a booking
   * ("Frank", "Frank +1"); only on a display whose admin turned on "name who
   * runs without a booking", absent otherwise. Never a login, command or
   * purpose. A fixed field, like `unseen`.
   */
  runnerName?: string;
  /** A MIG slice: "0:2" (GPU 0, MIG device 2) and its profile; absent on a whole GPU. A fixed field, as above. */
  slice?: { ref: string; profile: string };
  /**
   * What Slurm holds it by where it is in use without a booking because of
   * Slurm (its own job, a reservation gpudesk did not make): the job's id or
   * the reservation's name and its end, never the job's user (a wall shows no
   * login). Absent otherwise. A fixed field, as above.
   */
  slurm?: WallSlurmHold;
}

export interface DisplayHost {
  id: string;
  name: string;
  online: boolean;
  /** ISO time of the host's last reading (for "offline 5 min"); null if never seen. */
  lastSeenAt: string | null;
  /** UUIDs in nvidia-smi index order. */
  gpuUuids: string[];
}

/** The display scope's state as a screen holds it (components/live/display-feed-store.ts builds it from the wire). */
export interface DisplayFeed {
  serverTime: string;
  simulated: boolean;
  /** Only the hosts the screen asked for (`?hosts=`), or all. */
  hosts: DisplayHost[];
  gpus: Record<string, DisplayGpu>;
  /** Alerts open now, fleet-wide; null where the server keeps no alerts. */
  openAlerts: number | null;
}

export const LIVE_NAMESPACE = "/live";
export const AGENT_NAMESPACE = "/agent";
/** Points kept per GPU on the server: 15 minutes at 1 Hz. */
export const HISTORY_POINTS = 900;
export const SPARKLINE_POINTS = 60;
