import type { QuotaRefusal } from "@/lib/domain/team-schema";
import type { UnitName } from "@/lib/domain/gpu-availability";
import { describeWaitReason, type UnbookedWork, type WaitingForSlurm, type WaitingNodes, type WaitReason, waitReasonSentence } from "@/lib/domain/waitlist-schema";

/** What is known of one waiting request now; list-waitlist.ts gathers it from the database, the limits and the live fleet. */
export interface WaitFacts {
  nowMs: number;
  /** The refusal a grant now would meet from the limits (team or own); null: the limits let it through. */
  limit: QuotaRefusal | null;
  /** Every host the request accepts, with why it can never hold it (too few GPUs, a host rule); null: it can. */
  hosts: { name: string; excludedBy: string | null }[];
  /** Work without a booking on the GPUs it could have now, when that work is what holds it back. */
  unbooked: (UnbookedWork & { sinceMs: number | null }) | null;
  /** Hosts it needs that are offline now (the fleet's offline rule), where they are what keeps it from an earlier start; empty: none. */
  offline?: string[];
  /** The request ahead whose plan pushes this one later (fair-share order); null: none does. */
  ahead: { position: number; person: string; team: string | null } | null;
  /** Bookings holding GPUs of the accepted hosts now, soonest end first. */
  bookers: { person: string; hostName: string; gpuIndex: number; mig?: UnitName["mig"]; untilMs: number }[];
  /** Slurm's own jobs and the reservations gpudesk did not make holding GPUs of the accepted hosts now; absent: none (or no Slurm). */
  slurm?: WaitingForSlurm[];
  /** The start the played-forward queue gives it (server/waitlist/estimate-starts.ts); null: not within the horizon. */
  plannedStartMs: number | null;
  /** Across nodes: what it needs, and the hosts that could take a node now; null or absent for one host. */
  nodes?: WaitingNodes | null;
}

/** Bookings named in a reason (each with all its GPUs): the few that end first say enough. */
const BOOKINGS_SHOWN = 3;

/**
 * Why a waiting request is not granted now, and the start to expect
 * given that cause: the one computation behind the queue page, the API,
 * `gpudesk reserve --wait` and the person's notice. Causes in order: no
 * host can ever hold it; a limit (the estimate is no earlier than when the
 * limit leaves room, none when it never does by itself); unbooked work
 * (nobody knows when it ends); a host offline (nor when it comes back: the
 * estimate counts only the hosts that report); a request ahead; bookings and
 * Slurm's jobs and reservations holding the GPUs. The estimate is never "now" while a cause stands; with no cause
 * the request fits now and the next pass grants it.
 */
export function waitingBecause(facts: WaitFacts): { reason: WaitReason | null; estimatedStartMs: number | null } {
  const reason = withHeldOut(withNodes(firstCause(facts), facts.nodes ?? null), facts.hosts);
  let estimate = facts.plannedStartMs;
  if (reason?.kind === "no_host") estimate = null;
  if (reason?.kind === "limit") {
    const freesMs = reason.freesAt === null ? null : Date.parse(reason.freesAt);
    estimate = freesMs === null || estimate === null ? null : Math.max(estimate, freesMs);
  }
  if (reason !== null && estimate !== null && estimate <= facts.nowMs) estimate = null;
  return { reason, estimatedStartMs: estimate };
}

/**
 * The hosts a rule leaves out, said after the cause: a request of a team
 * that may book one host waits for that host, and the queue says so
 * rather than naming work and bookings on hosts it could never take.
 */
function withHeldOut(reason: WaitReason | null, hosts: WaitFacts["hosts"]): WaitReason | null {
  const heldOut = hosts.flatMap((host) => (host.excludedBy === null ? [] : [{ host: host.name, why: host.excludedBy }]));
  if (reason === null || reason.kind === "no_host" || heldOut.length === 0) return reason;
  const withRule = { ...reason, heldOut };
  return { ...withRule, message: waitReasonSentence(withRule) };
}

/**
 * Across nodes, bookings that hold GPUs are said with what the request
 * needs at once: "needs 2 hosts with 8 free H100 each: 1 has them now
 * (node-a); GPUs held: …", so that a free node does not look like a grant.
 */
function withNodes(reason: WaitReason | null, nodes: WaitingNodes | null): WaitReason | null {
  if (reason === null || nodes === null || (reason.kind !== "held" && reason.kind !== "host_offline")) return reason;
  const withNeed = { ...reason, nodes };
  return { ...withNeed, message: waitReasonSentence(withNeed) };
}

function withMessage(reason: Parameters<typeof describeWaitReason>[0]): WaitReason {
  return { ...reason, message: describeWaitReason(reason) } as WaitReason;
}

function firstCause(facts: WaitFacts): WaitReason | null {
  if (facts.hosts.length > 0 && facts.hosts.every((host) => host.excludedBy !== null)) {
    return withMessage({ kind: "no_host", hosts: facts.hosts.map((host) => ({ host: host.name, why: host.excludedBy as string })) });
  }
  if (facts.limit) return withMessage({ kind: "limit", ...facts.limit });
  if (facts.unbooked) {
    const { sinceMs, ...work } = facts.unbooked;
    return withMessage({ kind: "unbooked_use", ...work, since: sinceMs === null ? null : new Date(sinceMs).toISOString() });
  }
  if (facts.offline && facts.offline.length > 0) return withMessage({ kind: "host_offline", hosts: facts.offline });
  if (facts.ahead) return withMessage({ kind: "queue", ahead: facts.ahead });
  const bookers = facts.bookers.filter((held) => held.untilMs > facts.nowMs);
  // Slurm's holds, soonest end first (no time limit last): a few say enough, as for bookings.
  const slurmEndMs = (hold: WaitingForSlurm) => (hold.until === null ? Number.MAX_SAFE_INTEGER : Date.parse(hold.until));
  const slurm = (facts.slurm ?? []).filter((hold) => slurmEndMs(hold) > facts.nowMs).sort((a, b) => slurmEndMs(a) - slurmEndMs(b)).slice(0, BOOKINGS_SHOWN);
  if ((bookers.length > 0 || slurm.length > 0) && (facts.plannedStartMs === null || facts.plannedStartMs > facts.nowMs)) {
    // Whole bookings, soonest end first: a booking of 4 GPUs is one named "GPUs 0–3", never cut after its first few.
    const bookingOf = (held: (typeof bookers)[number]) => `${held.person}\u0000${held.hostName}\u0000${held.untilMs}`;
    const shown = new Set([...new Set([...bookers].sort((a, b) => a.untilMs - b.untilMs).map(bookingOf))].slice(0, BOOKINGS_SHOWN));
    const soonest = bookers.filter((held) => shown.has(bookingOf(held))).sort((a, b) => a.untilMs - b.untilMs || a.gpuIndex - b.gpuIndex);
    return withMessage({ kind: "held", bookers: soonest.map(({ untilMs, ...held }) => ({ ...held, until: new Date(untilMs).toISOString() })), ...(slurm.length > 0 ? { slurm } : {}) });
  }
  return null;
}
