import type { BookingIdleView } from "@/lib/domain/idle-release";
import type { LaunchSettings } from "@/lib/domain/launch-settings";
import type { SlurmBookingView } from "@/lib/domain/slurm";
import type { BookingState, BookingStatus } from "@/lib/domain/booking-state";

/**
 * The JSON that the bookings API answers, read by the pages as well.
 * Times are ISO strings in UTC; pages show them in the viewer's zone.
 */

export interface PersonRef {
  id: string;
  username: string;
  name: string;
}

export interface ReservedGpu {
  uuid: string;
  /** nvidia-smi's index as last reported; UUIDs are the identity. */
  index: number;
  name: string;
  /** A MIG slice: its device index within GPU `index` ("0:1") and its profile; absent on a whole GPU. */
  mig?: { deviceIndex: number; profile: string };
  /** A booked MIG slice that is gone from its host (its MIG layout changed): set on bookings still to come or running. */
  gone?: true;
}

/** What the audit log records about bookings and the booking rules (lib/domain/audit.ts has every kind). */
export type BookingAuditAction =
  | "reservation.create"
  | "reservation.extend"
  | "reservation.shorten"
  | "reservation.release"
  | "reservation.cancel"
  | "reservation.keep"
  | "reservation.replace_part"
  | "reservation.idle_release"
  | "policy.update"
  | "policy.idle_exemption_add"
  | "policy.idle_exemption_remove";

/** One change to a booking after it was made: what the booker sees, with the reason an admin gave. */
export interface BookingChangeView {
  at: string;
  action: BookingAuditAction;
  actor: PersonRef | null;
  reason: string | null;
  endsAtBefore: string | null;
  endsAtAfter: string | null;
}

export interface BookingView {
  id: string;
  /** Derived from status and times at `serverTime` of the answer; pages derive it again as time passes. */
  state: BookingState;
  status: BookingStatus;
  host: { id: string; name: string };
  gpus: ReservedGpu[];
  startsAt: string;
  endsAt: string;
  purpose: string;
  bookedBy: PersonRef;
  createdAt: string;
  cancelReason: string | null;
  cancelledBy: PersonRef | null;
  changes: BookingChangeView[];
  launch: LaunchSettings;
  /** "idle" when idle release ended it (state "released"); null otherwise. */
  releasedBecause: "idle" | null;
  /** Idle release's view of it: an active booking idle now (with its coming release), or one idle release ended; else null. */
  idle: BookingIdleView | null;
  /**
   * A unit this booking holds is gone from its host because its GPU's MIG
   * layout changed (a slice destroyed, or a whole GPU split into slices
   * since): the booking cannot be used as it is, and the booker should book
   * another unit. Derived from the stored inventory; cleared when the unit
   * is seen again. Absent otherwise.
   */
  sliceGone?: true;
  /** On Slurm nodes: its Slurm reservation, whether Slurm holds it, and why not; null elsewhere. */
  slurm?: SlurmBookingView | null;
  /** Why these GPUs, on the answer that booked "any N GPUs": "2 and 3 on node-b: idle, NVLink-connected (NV4)". */
  explanation?: string;
  /** This booking is one part (one node) of a booking across nodes; absent on a booking of one host. */
  multiNode?: MultiNodeView;
}

/** One node of a booking across nodes. */
export interface MultiNodePart {
  /** The part's own row id (each part is an ordinary booking of its host). */
  id: string;
  /** 0 for the first node: the rendezvous host of the launch lines. */
  nodeRank: number;
  host: { id: string; name: string };
  gpus: ReservedGpu[];
}

/** The booking across nodes that a part belongs to, as the part's view carries it. */
export interface MultiNodeView {
  /** The booking's id: the node-0 part's id, what `gpudesk run --booking` takes. */
  id: string;
  /** This part's rank. */
  nodeRank: number;
  nodeCount: number;
  /** "2 × 4 H100" (lib/domain/multi-node.ts). */
  label: string;
  /** "2 × 4 H100, node 1 of 2". */
  partLabel: string;
  /** Every part, in rank order. */
  parts: MultiNodePart[];
}

/** The answer to a booking across nodes: the booking and each part with its own launch lines. */
export interface MultiNodeBookingView {
  id: string;
  nodeCount: number;
  label: string;
  startsAt: string;
  endsAt: string;
  purpose: string;
  /** Each part's view, in rank order: its launch lines are that node's. */
  parts: BookingView[];
  /** Why these hosts and GPUs, where gpudesk picked them. */
  explanation?: string;
  /** Said when the parts span fabrics, or where the fabric is not known. */
  warnings: string[];
}

/** A booking that stands in the way of a request. */
export interface BookingConflict {
  reservationId: string;
  hostName: string;
  gpuIndex: number;
  gpuUuid: string;
  /** The booked unit is a MIG slice: "0:2" and its profile. */
  slice?: { ref: string; profile: string };
  bookedBy: PersonRef;
  startsAt: string;
  endsAt: string;
  purpose: string;
  /**
   * When the unit is next free after this booking: its end, or the end of
   * the bookings that follow it back to back (each booker in `thenHeldBy`).
   */
  freeAt?: string;
  thenHeldBy?: PersonRef[];
}

/** What the person could book instead. */
export interface ConflictSuggestion {
  hostName: string | null;
  /** Earliest start at or after the requested one when the request fits, same length; null if none within the policy. */
  nextFreeAt: string | null;
  /** GPUs of the host that are free for the whole requested time. */
  freeGpuIndices: number[];
  /** For an extension: the latest end that fits, or null if none does. */
  latestEndAt?: string | null;
}

/** A process of someone else on a GPU asked for by index, as a 409 `gpu_in_use` names it. */
export interface BusyGpuProcess {
  pid: number;
  /** The gpudesk person the server attributes it to; null when only the login is known. */
  owner: PersonRef | null;
  login: string | null;
  /** How the person is shown: the display name (with the username where needed), else the login. */
  ownerName: string;
  command: string | null;
  /** When the process started, as the agent read it; null where unknown. */
  startedAt: string | null;
}

export interface BusyGpu {
  hostName: string;
  gpuIndex: number;
  gpuUuid: string;
  /** The unit's name, as every surface gives it: "GPU 1", "GPU 0:2 (1g.10gb)". */
  unit: string;
  /** On a MIG slice: its ref ("0:2", GPU 0's MIG device 2) and profile; absent on a whole GPU. */
  slice?: { ref: string; profile: string };
  /** Empty when the GPU is in use with no process visible (a job nvidia-smi cannot see): then `unseenMemoryMiB` says what it holds. */
  processes: BusyGpuProcess[];
  unseenMemoryMiB?: number | null;
}

/** The body of a 409 for GPUs on which someone else's processes run now (send `allowBusy: true` to book anyway). */
export interface GpuInUseBody {
  error: {
    code: "gpu_in_use";
    message: string;
    busyGpus: BusyGpu[];
  };
}

/** The body of a 409 from the booking endpoints. */
export interface BookingConflictBody {
  error: {
    code: "conflict";
    message: string;
    conflicts: BookingConflict[];
    suggestion: ConflictSuggestion;
  };
}

export interface PolicyView {
  maxDurationMinutes: number;
  maxGpusPerUser: number;
  maxAdvanceDays: number;
  /** Idle release: minutes of idle readings before a booking is released; 0 is off. */
  idleReleaseAfterMinutes: number;
  /** How long before the release the booker is warned. */
  idleWarningMinutes: number;
  /** A reading below this utilization (percent) is idle. */
  idleBelowPct: number;
  /** How often a booker may say "keep" per booking. */
  idleKeepsPerBooking: number;
  /** Warn and list what would be released, release nothing. */
  idleReportOnly: boolean;
  /** Off because this installation upgraded to a version with idle release: /admin/policies says it exists. */
  idleOffAfterUpgrade: boolean;
  updatedAt: string | null;
  updatedBy: PersonRef | null;
}

/** A host and its GPUs as the booking form and the schedule list them. */
export interface BookableHost {
  id: string;
  name: string;
  simulated: boolean;
  gpus: BookableGpu[];
}

/** A unit of a host as the form lists it: a GPU, or a MIG slice (`mig`); a partitioned GPU (`partitioned`) is listed for its slices, not booked. */
export interface BookableGpu {
  uuid: string;
  index: number;
  name: string;
  memoryTotalMiB: number | null;
  mig?: { deviceIndex: number; profile: string };
  /** A slice: the UUID of the GPU it is carved from (a booking of that GPU takes the slice: `sharesSilicon`). */
  parentUuid?: string;
  partitioned?: true;
}
