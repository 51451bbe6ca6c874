import * as z from "zod";
import { text } from "@/lib/domain/plain-text";
import { checkMultiNodeShape, DURATION_MAX_MINUTES, HOST_NAME_MAX, MAX_GPUS_PER_REQUEST, multiNodeShapeFields, type MultiNodeShapeRequest, PURPOSE_MAX } from "@/lib/domain/booking-schema";
import { multiNodeLabel } from "@/lib/domain/multi-node";
import type { QuotaRefusal } from "@/lib/domain/team-schema";
import { unitName, type UnitName } from "@/lib/domain/gpu-availability";
import { slurmHoldName, slurmUntil } from "@/lib/domain/slurm";

/** `POST /api/v1/waitlist`: "N GPUs for this long, when they free up". */
export const waitRequestSchema = z.strictObject({
  count: z.int("Enter a whole number of GPUs").min(1, "Ask for at least 1 GPU").max(MAX_GPUS_PER_REQUEST, `At most ${MAX_GPUS_PER_REQUEST} GPUs in one booking`),
  host: text().trim().min(1).max(HOST_NAME_MAX).optional(),
  minFreeMemoryMiB: z.int("Enter whole MiB").min(0).max(16 * 1024 * 1024).optional(),
  durationMinutes: z.int("Enter whole minutes").min(1, "A booking lasts at least 1 minute").max(DURATION_MAX_MINUTES, "A booking lasts at most a year"),
  purpose: text("Say what the GPUs are for").trim().min(1, "Say what the GPUs are for").max(PURPOSE_MAX, `At most ${PURPOSE_MAX} characters`),
  /** The team to book for (name or id); the person's accounting team when absent. */
  team: text().trim().min(1).max(64).optional(),
});

/** `POST /api/v1/waitlist` across nodes: "2 nodes × 8 H100 (or these parts) for this long, when they free up"; granted whole. */
export const multiNodeWaitRequestSchema = z
  .strictObject({
    ...multiNodeShapeFields(),
    durationMinutes: waitRequestSchema.shape.durationMinutes,
    purpose: waitRequestSchema.shape.purpose,
    team: waitRequestSchema.shape.team,
  })
  .superRefine((value, ctx) => checkMultiNodeShape(value, (path, message) => ctx.addIssue({ code: "custom", path: [path], message })));

export type MultiNodeWaitRequest = z.infer<typeof multiNodeWaitRequestSchema>;

/** What a waiting request across nodes asks for, as stored in WaitlistEntry.multiNode (checked again when read). */
export const storedMultiNodeSchema = z.object(multiNodeShapeFields());

/** A waiting request across nodes as the queue shows it. */
export interface WaitingMultiNode extends MultiNodeShapeRequest {
  /** "2 × 8 H100", "3 GPUs on node-a and node-b": what it asks for in one phrase. */
  label: string;
}

/** The queue's phrase for a request across nodes: the label of the booking it becomes ("2 × 8 H100"), or its parts by host. */
export function waitingMultiNodeLabel(shape: MultiNodeShapeRequest): string {
  if (shape.parts) {
    const sizes = shape.parts.map((part) => (typeof part.gpus === "number" ? part.gpus : part.gpus.length));
    return `${multiNodeLabel({ nodeCount: sizes.length, gpusPerPart: sizes, model: shape.model ?? null })} (${shape.parts.map((part) => part.host).join(", ")})`;
  }
  return multiNodeLabel({ nodeCount: shape.nodes ?? 0, gpusPerPart: Array.from({ length: shape.nodes ?? 0 }, () => shape.gpusPerNode ?? 0), model: shape.model ?? null });
}

export const waitlistIdSchema = text().min(1).max(64, "Not a waitlist id");

export type WaitlistStatus = "waiting" | "granted" | "expired" | "left";

/** Work without a booking on GPUs a waiting request could take: where, and who runs it. */
export interface UnbookedWork {
  /** A MIG slice carries its device and profile (`mig`), so that it is named as everywhere ("GPU 0:2 (1g.10gb)"). */
  gpus: ({ hostName: string } & UnitName)[];
  /** How the people running there are shown (lib/format/person-name.ts), else their logins. */
  people: string[];
}

/** "waits for work without a booking to end (Bob Member on sim-h100-a GPUs 4, 5)". */
export function describeUnbookedWork(work: UnbookedWork): string {
  const byHost = new Map<string, UnitName[]>();
  for (const gpu of work.gpus) byHost.set(gpu.hostName, [...(byHost.get(gpu.hostName) ?? []), gpu]);
  const where = [...byHost]
    .map(([host, units]) => {
      // "node-a GPUs 1, 2", runs joined ("GPU 0–7"), and a slice by its one name: "migbox GPU 0:2 (1g.10gb)".
      return `${host} ${unitList(units)}`;
    })
    .join("; ");
  const who = work.people.length > 0 ? `${work.people.join(", ")} on ` : "";
  return `waits for work without a booking to end (${who}${where})`;
}

/**
 * Why a waiting request is not granted now, first cause first: no host can
 * ever hold it, a limit (the team's or the person's own), GPUs in use
 * without a booking, a host it needs that is offline (its agent silent: the
 * fleet's own offline rule), a request ahead in fair-share order, or
 * bookings that hold the GPUs. `message` says it in one sentence (times in UTC), the same
 * on the queue page, in the API and in `gpudesk reserve --wait`.
 */
export type WaitReason = { message: string } & (
  | ({ kind: "limit" } & QuotaRefusal)
  | { kind: "no_host"; hosts: { host: string; why: string }[] }
  | { kind: "unbooked_use"; gpus: { hostName: string; index: number }[]; people: string[]; since: string | null }
  | { kind: "queue"; ahead: { position: number; person: string; team: string | null } }
  | {
      kind: "held";
      bookers: { person: string; hostName: string; gpuIndex: number; mig?: UnitName["mig"]; until: string }[];
      /** Slurm's own jobs and the reservations gpudesk did not make that hold GPUs of its hosts now (absent: none). */
      slurm?: WaitingForSlurm[];
    }
  | { kind: "host_offline"; hosts: string[] }
) & {
  /** Hosts it would take that a rule of its limits leaves out (a team's host rule), and why: said after the cause. */
  heldOut?: { host: string; why: string }[];
  /** Across nodes, with bookings holding GPUs or a host offline: what it needs at once and which hosts could take a node now. */
  nodes?: WaitingNodes;
};

/** A Slurm job or reservation in a waiting request's way: on which host's GPUs, until when (null: no time limit, or none given). */
export interface WaitingForSlurm {
  kind: "job" | "reservation";
  /** The job's id, or the booking's name. */
  id: string;
  user: string | null;
  state: "running" | "pending" | "reserved";
  hostName: string;
  gpuIndices: number[];
  until: string | null;
  noTimeLimit?: true;
}

/** "Slurm job 42 of bob on sim-2 GPUs 0–3 until today 21:00", "Slurm reservation maint on sim-2 GPU 7 (no time limit)". */
function slurmInTheWay(hold: WaitingForSlurm, when: WhenWords): string {
  const name = hold.kind === "reservation" ? `Slurm reservation ${hold.id}` : `${slurmHoldName(hold)}${hold.state === "pending" ? " (pending)" : ""}`;
  return `${name} on ${hold.hostName} ${unitList(hold.gpuIndices.map((index) => ({ index })))}${slurmUntil(hold, when)}`;
}

/** What a request across nodes needs at once, and the hosts that could take one node now. */
export interface WaitingNodes {
  count: number;
  /** GPUs on each node; null where named parts differ. */
  perNode: number | null;
  model: string | null;
  /** The named parts' hosts; null: any hosts. */
  hosts: string[] | null;
  freeNow: string[];
}

/** "needs 2 hosts with 8 free H100 each: 1 has them now (node-a)"; named parts: "needs node-a and node-b at once: node-b is free now". */
export function describeWaitingNodes(nodes: WaitingNodes): string {
  const free = nodes.freeNow.length;
  if (nodes.hosts) {
    const now = free === 0 ? "none is free now" : `${nodes.freeNow.join(" and ")} ${free === 1 ? "is" : "are"} free now`;
    return `needs ${nodes.hosts.join(" and ")} at once: ${now}`;
  }
  const kind = nodes.model ?? `GPU${nodes.perNode === 1 ? "" : "s"}`;
  const has = free === 0 ? "none has them now" : `${free} ${free === 1 ? "has" : "have"} them now (${nodes.freeNow.join(", ")})`;
  return `needs ${nodes.count} hosts with ${nodes.perNode ?? "the asked"} free ${kind} each: ${has}`;
}

/** "2026-11-30 10:45 UTC": one spelling for the reasons' times, whoever reads them. */
export const utcMinute = (iso: string | number) => `${new Date(iso).toISOString().slice(0, 16).replace("T", " ")} UTC`;

const LIMIT_WORDS: Record<QuotaRefusal["limit"], (refusal: QuotaRefusal) => string> = {
  maxGpus: (q) => `${q.used} of ${q.max} GPUs at once in use, this request asks for ${q.requested}`,
  gpuHoursPer7Days: (q) => `${q.used} of ${q.max} GPU-hours in 7 days booked, this request adds ${q.requested}`,
  maxBookingMinutes: (q) => `bookings last at most ${q.max} minutes`,
  hosts: () => "the hosts it may book are not open now",
};

/** How a reason writes a time: utcMinute in the API's message, the viewer's "today 15:04" on a page and in the CLI. */
export type WhenWords = (iso: string) => string;

/** The sentence of a reason (without its message), every time in one format. */
export function describeWaitReason(reason: DistributiveOmit<WaitReason, "message">, when: WhenWords = utcMinute): string {
  switch (reason.kind) {
    case "limit": {
      const whose = reason.scope === "team" ? `the team ${reason.subject}'s limit` : `${reason.subject}'s own limit`;
      const room = reason.freesAt ? `; room from ${when(reason.freesAt)}` : "";
      return `waits for ${whose}: ${LIMIT_WORDS[reason.limit](reason)}${room}`;
    }
    case "no_host":
      return `no host can hold it: ${reason.hosts.map((host) => host.why).join("; ")}`;
    case "unbooked_use": {
      const since = reason.since ? ` since ${when(reason.since)}` : "";
      return describeUnbookedWork(reason) + since;
    }
    case "queue":
      return `waits behind ${reason.ahead.person}${reason.ahead.team ? ` (${reason.ahead.team})` : ""}, ${ordinal(reason.ahead.position)} in fair-share order`;
    case "host_offline":
      return `${reason.hosts.join(" and ")} ${reason.hosts.length === 1 ? "is" : "are"} offline (not reporting)`;
    case "held": {
      // Slurm's holds read "waits for Slurm job 42 of bob on sim-2 GPUs 0–3 until …", after the bookings where there are both.
      const slurm = (reason.slurm ?? []).map((hold) => slurmInTheWay(hold, when));
      if (reason.bookers.length === 0) return `waits for ${slurm.join("; ")}`;
      const bookings = heldBookings(reason.bookers).map((booking) => `${booking.person} holds ${booking.hostName} ${unitList(booking.units)} until ${when(booking.until)}`);
      return `GPUs held: ${[...bookings, ...slurm].join("; ")}`;
    }
  }
}

/**
 * The whole sentence of a reason: its cause (the bookings in the way first),
 * then (across nodes) what it needs at once, then the hosts a rule holds out. The server writes the
 * API's `message` with it in UTC; /queue and `gpudesk reserve --wait`
 * write it again with the reader's own times.
 */
export function waitReasonSentence(reason: DistributiveOmit<WaitReason, "message">, when: WhenWords = utcMinute): string {
  let sentence = describeWaitReason(reason, when);
  // The bookings in the way first, then what the request needs at once; an offline host reads after the need ("needs 2 hosts …: 1 has them now; h100-02 is offline").
  if (reason.nodes && reason.kind === "held") sentence = `${sentence}; ${describeWaitingNodes(reason.nodes)}`;
  if (reason.nodes && reason.kind === "host_offline") sentence = `${describeWaitingNodes(reason.nodes)}; ${sentence}`;
  const heldOut = reason.kind === "no_host" ? [] : (reason.heldOut ?? []);
  // The first host's reason stands for the rest: a host rule's reads "… may not book X (hosts allowed: Y)" for each of them.
  if (heldOut.length > 0) sentence += `; held out: ${heldOut.map((host) => host.host).join(", ")} — ${heldOut[0]!.why}`;
  return sentence;
}

type HeldBooker = Extract<WaitReason, { kind: "held" }>["bookers"][number];

/** Bookers' GPUs as the bookings they are: one per person, host and end, soonest end first. */
function heldBookings(bookers: readonly HeldBooker[]): { person: string; hostName: string; until: string; units: UnitName[] }[] {
  const bookings = new Map<string, { person: string; hostName: string; until: string; units: UnitName[] }>();
  for (const held of bookers) {
    const key = `${held.person}\u0000${held.hostName}\u0000${Date.parse(held.until)}`;
    const booking = bookings.get(key) ?? { person: held.person, hostName: held.hostName, until: held.until, units: [] };
    booking.units.push({ index: held.gpuIndex, mig: held.mig });
    bookings.set(key, booking);
  }
  return [...bookings.values()].sort((a, b) => Date.parse(a.until) - Date.parse(b.until));
}

/** A host's GPUs in one phrase, runs joined: "GPU 4–6", "GPUs 0, 2, 4–6"; a slice by its one name: "GPU 0:2 (1g.10gb)". */
export function unitList(units: readonly UnitName[]): string {
  const whole = [...new Set(units.filter((unit) => !unit.mig).map((unit) => unit.index))].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < whole.length; ) {
    let j = i;
    while (j + 1 < whole.length && whole[j + 1] === whole[j]! + 1) j++;
    runs.push(j - i >= 2 ? `${whole[i]}–${whole[j]}` : whole.slice(i, j + 1).join(", "));
    i = j + 1;
  }
  const list = runs.join(", ");
  const gpus = whole.length === 0 ? [] : [`GPU${list.includes(",") ? "s" : ""} ${list}`];
  return [...gpus, ...units.filter((unit) => unit.mig).map(unitName)].join(", ");
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** "1st", "2nd", "11th": a place in the queue. */
export function ordinal(n: number): string {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th";
  return `${n}${tail}`;
}

/** A waiting request as the API answers it. */
export interface WaitlistView {
  id: string;
  status: WaitlistStatus;
  /** The asker; `name` is their display name (lib/format/person-name.ts shows it). */
  bookedBy: { id: string; username: string; name: string };
  host: string | null;
  /** GPUs asked for; across nodes, those of every part together. */
  count: number;
  /** Set for a request across nodes (granted whole, every part at once); null: one host. */
  multiNode: WaitingMultiNode | null;
  durationMinutes: number;
  purpose: string;
  createdAt: string;
  /** 1 for the next to be served; null once it no longer waits. */
  position: number | null;
  /**
   * When it can expect its GPUs, from the current bookings' end times and the
   * requests ahead of it; null when it no longer waits or nothing fits within
   * a week. Early releases make it sooner, new bookings later.
   */
  estimatedStartAt: string | null;
  /**
   * Set when GPUs it could have now are in use without a booking: nobody can
   * say when such work ends, so the estimate leaves those GPUs out (it is
   * then from bookings elsewhere, or null) and this says who runs there.
   */
  waitsForUnbookedWork: UnbookedWork | null;
  /** Why it is not granted now (server/waitlist/waiting-because.ts); null when nothing holds it back (granted within a tick) or it no longer waits. */
  waitingBecause: WaitReason | null;
  reservationId: string | null;
  grantedAt: string | null;
  expiresAt: string | null;
  /** The team it books for (named, or its person's accounting team); null: none. */
  team: string | null;
  /** Why it stands where it does: "2nd — vision used 130 % of its share this week"; null once it no longer waits. */
  orderReason: string | null;
}

/** What a waiting request asks for in one phrase, on /queue and in the grant's toast: "2 GPUs on node-b", "2 GPUs on any host", "2 × 8 H100 across nodes". */
export function waitedPhrase(entry: Pick<WaitlistView, "count" | "host" | "multiNode">, anyHost = "any host"): string {
  if (entry.multiNode) return `${entry.multiNode.label} across nodes`;
  return `${entry.count} GPU${entry.count > 1 ? "s" : ""} on ${entry.host ?? anyHost}`;
}

/** `waitlist:granted` on /live, to the person whose waiting request became a booking. */
export interface GrantNotice {
  entryId: string;
  userId: string;
  reservationId: string;
  hostName: string;
  gpuIndices: number[];
  /** The booking's units by their one name: "GPU 0:2 (1g.10gb)", "GPUs 2, 3". */
  units: string;
  startsAt: string;
  endsAt: string;
  purpose: string;
  /** Why these GPUs, as the booking answer says it. */
  explanation: string | null;
}
