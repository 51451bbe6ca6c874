import { fabricKey, parseStoredFabric } from "@/lib/domain/fabric";
import { storedUnit, type UnitName } from "@/lib/domain/gpu-availability";
import type { QuotaRefusal } from "@/lib/domain/team-schema";
import type { UnbookedWork, WaitingForSlurm, WaitlistStatus, WaitlistView, WaitReason } from "@/lib/domain/waitlist-schema";
import { slurmHoldOf } from "@/lib/domain/slurm";
import { listSlurmBlocks } from "@/server/bookings/views/slurm-blocks";
import { writeAudit } from "@/server/access/audit-log";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { checkBookingLimits, effectiveLimits, QuotaExceededError, refuseHost } from "@/server/bookings/rules/check-limits";
import { entryTeam } from "@/server/waitlist/entry-team";
import { type WaitFacts, waitingBecause } from "@/server/waitlist/waiting-because";
import type { Actor } from "@/server/access/actor";
import { busyRanges, freeGpuIds } from "@/server/bookings/store/occupancy";
import { gpusOfHost } from "@/server/bookings/placement/booking-candidates";
import { liveGpuSource } from "@/server/runtime/live-source";
import { type EstimateEntry, estimateStarts } from "@/server/waitlist/estimate-starts";
import { findUnbookedWork, unbookedWorkFor } from "@/server/waitlist/unbooked-work";
import { orderByFairShare } from "@/server/waitlist/fair-share";
import { readWaitingMultiNode, waitingMultiNodeView } from "@/server/waitlist/waiting-multi-node";
import type { MultiNodeShapeRequest } from "@/lib/domain/booking-schema";
import { isOfModel } from "@/server/bookings/placement/pick-any-gpus";
import { can } from "@/server/access/permissions";
import { readUnitsHeldAt } from "@/server/bookings/store/booked-units";

const SELECT = {
  id: true,
  userId: true,
  hostName: true,
  multiNode: true,
  gpuCount: true,
  durationMinutes: true,
  purpose: true,
  status: true,
  reservationId: true,
  createdAt: true,
  grantedAt: true,
  expiresAt: true,
  teamId: true,
} as const;

type Row = { id: string; userId: string; hostName: string | null; multiNode: string | null; gpuCount: number; durationMinutes: number; purpose: string; status: string; reservationId: string | null; createdAt: Date; grantedAt: Date | null; expiresAt: Date | null; teamId: string | null };

/** Where a waiting request stands in the fair-share order, and for which team. */
interface Standing {
  reason: string;
  teamName: string | null;
}

interface Estimate {
  startMs: number | null;
  waitsForUnbookedWork: UnbookedWork | null;
  because: WaitReason | null;
}

const NO_ESTIMATE: Estimate = { startMs: null, waitsForUnbookedWork: null, because: null };

function view(row: Row, bookedBy: Booker, position: number | null, estimate: Estimate = NO_ESTIMATE, standing: Standing | null = null): WaitlistView {
  const waiting = row.status === "waiting";
  return {
    id: row.id,
    status: row.status as WaitlistStatus,
    bookedBy: { id: row.userId, username: bookedBy.username, name: bookedBy.name },
    host: row.hostName,
    count: row.gpuCount,
    multiNode: waitingMultiNodeView(row.multiNode),
    durationMinutes: row.durationMinutes,
    purpose: row.purpose,
    createdAt: row.createdAt.toISOString(),
    position,
    estimatedStartAt: waiting && estimate.startMs !== null ? new Date(estimate.startMs).toISOString() : null,
    waitsForUnbookedWork: waiting ? estimate.waitsForUnbookedWork : null,
    waitingBecause: waiting ? estimate.because : null,
    reservationId: row.reservationId,
    grantedAt: row.grantedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    team: standing?.teamName ?? null,
    orderReason: waiting ? (standing?.reason ?? null) : null,
  };
}

interface Booker {
  username: string;
  name: string;
}

/** Each asker's username and display name: the queue names people as every other page does. */
async function bookers(ids: string[]): Promise<Map<string, Booker>> {
  const users = await db().user.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, username: true, name: true } });
  return new Map(users.map((user) => [user.id, { username: user.username ?? user.id, name: user.name }]));
}

/** How far ahead estimates look: beyond a week, "no estimate" says more than a date would. */
const ESTIMATE_HORIZON_MS = 7 * 24 * 3600_000;

async function waitingRows(): Promise<Row[]> {
  return db().waitlistEntry.findMany({ where: { status: "waiting" }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: SELECT });
}

/**
 * Each waiting request's estimated start and why it waits, from the
 * bookings now in the database, the limits and the live fleet
 * (server/waitlist/waiting-because.ts decides from these facts). GPUs in
 * use without a booking count as taken for good: nobody knows when that
 * work ends, and an estimate of "now" that slides forward with the clock
 * would mislead. `ranked` is in order of service.
 */
async function estimatesOf(ranked: RankedRow[], nowMs: number): Promise<Map<string, Estimate>> {
  if (ranked.length === 0) return new Map();
  const rows = ranked.map((entry) => entry.row);
  // The GPUs a waiting request can be granted (whole, not split into slices), as the grant picks them: a split GPU
  // or a slice of a former layout counted as room made the estimate "now" for GPUs no grant could take.
  const hostRows = await db().host.findMany({ select: { id: true, name: true, fabric: true, fabricLabel: true } });
  const hosts = await Promise.all(hostRows.map(async (host) => ({ name: host.name, gpus: await gpusOfHost(db(), host.id) })));
  const gpuIds = hosts.flatMap((host) => host.gpus.map((gpu) => gpu.id));
  const live = liveGpuSource();
  const booked = await busyRanges(db(), gpuIds, new Date(nowMs), new Date(nowMs + 2 * ESTIMATE_HORIZON_MS));
  // A host that is offline (the fleet's rule: its agent silent, or never heard) is free for nobody: its GPUs count as
  // taken until it reports again, which no one can date, so a request that needs it gets no start from it.
  const offline = offlineHosts(hostRows, live);
  const blocked = (names: readonly string[]) => hosts.filter((host) => names.includes(host.name)).flatMap((host) => host.gpus.map((gpu) => ({ gpuId: gpu.id, startMs: nowMs, endMs: Number.MAX_SAFE_INTEGER })));
  const busy = booked.concat(blocked(offline));
  const unbooked = findUnbookedWork(hosts, busy, live, nowMs);
  const [holding, people] = await Promise.all([bookersNow(nowMs), bookers(rows.map((row) => row.userId))]);
  const slurmHolding = slurmNow(nowMs);
  const shapes = new Map(rows.map((row) => [row.id, shapeOf(row)]));
  const gpuNames = new Map((await db().gpu.findMany({ where: { id: { in: gpuIds } }, select: { id: true, name: true } })).map((gpu) => [gpu.id, gpu.name]));
  // A request across nodes takes only GPUs of its model, and a host only where one node's GPUs fit on it.
  const ofModel = (shape: MultiNodeShapeRequest | null) => (shape?.model === undefined ? undefined : new Set(gpuIds.filter((id) => isOfModel(gpuNames.get(id) ?? "", shape.model))));
  const modelIds = new Map(rows.map((row) => [row.id, ofModel(shapes.get(row.id) ?? null)]));
  const nodesOf = new Map(rows.map((row) => [row.id, nodesWanted(shapes.get(row.id) ?? null)]));
  const acceptedBy = new Map(
    rows.map((row) => {
      const nodes = nodesOf.get(row.id);
      const usable = (host: (typeof hosts)[number]) => host.gpus.filter((gpu) => modelIds.get(row.id)?.has(gpu.id) ?? true).length;
      if (!nodes) return [row.id, hosts.filter((host) => row.hostName === null || host.name === row.hostName)];
      return [row.id, hosts.filter((host) => nodes.some((node) => node.hostName === null || node.hostName === host.name)).map((host) => ({ ...host, usable: usable(host) }))];
    }),
  );
  const limitsOf = new Map<string, Awaited<ReturnType<typeof limitsFor>>>();
  for (const row of rows) limitsOf.set(row.id, await limitsFor(row, people.get(row.userId), acceptedBy.get(row.id)!, nowMs, nodesOf.get(row.id)));
  // A request a limit holds is passed over by the grant: the plan gives it GPUs only from when the limit leaves room.
  // The hosts each request may take: those it names (or all), less those a rule of its limits leaves out for good.
  const allowedOf = (row: Row) => limitsOf.get(row.id)!.hosts.filter((host) => host.excludedBy === null).map((host) => host.name);
  const entries: EstimateEntry[] = rows.map((row) => {
    const refusal = limitsOf.get(row.id)!.refusal;
    return {
      id: row.id,
      hostName: row.hostName,
      allowedHosts: allowedOf(row),
      count: row.gpuCount,
      durationMinutes: row.durationMinutes,
      ...(nodesOf.get(row.id) ? { nodes: nodesOf.get(row.id) } : {}),
      ...(modelIds.get(row.id) ? { gpuIds: modelIds.get(row.id) } : {}),
      ...(refusal ? { limitFreesAtMs: refusal.freesAt === null ? null : Date.parse(refusal.freesAt) } : {}),
    };
  });
  // Each host's fabric, as the grant reads it: "any N nodes" is planned on one, by the grant's own rule (chooseNodes).
  const fabricOf = new Map(hostRows.map((host) => [host.name, fabricKey(parseStoredFabric(host.fabric), host.fabricLabel)]));
  const estimateHosts = hosts.map((host) => ({ name: host.name, gpuIds: host.gpus.map((gpu) => gpu.id), fabric: fabricOf.get(host.name) ?? null }));
  const byBookings = estimateStarts(entries, estimateHosts, busy, nowMs, ESTIMATE_HORIZON_MS);
  const untilUnbookedEnds = busy.concat(unbooked.map((gpu) => ({ gpuId: gpu.gpuId, startMs: nowMs, endMs: Number.MAX_SAFE_INTEGER })));
  const held = unbooked.length > 0 ? estimateStarts(entries, estimateHosts, untilUnbookedEnds, nowMs, ESTIMATE_HORIZON_MS) : byBookings;
  const estimates = new Map<string, Estimate>();
  for (const [at, { row }] of ranked.entries()) {
    const entry = entries[at]!;
    const plain = byBookings.get(row.id) ?? null;
    const plannedStartMs = held.get(row.id) ?? null;
    const heldBack = plain !== null && (plannedStartMs === null || plannedStartMs > plain);
    const work = heldBack ? unbookedWorkFor(allowedOf(row), unbooked) : null;
    // Alone in the queue it would start this early: a later plan is the doing of a request ahead.
    const alone = estimateStarts([entry], estimateHosts, busy, nowMs, ESTIMATE_HORIZON_MS).get(row.id) ?? null;
    const ahead = plain !== null && alone !== null && plain > alone ? requestAhead(ranked, at, people, (other) => limitsOf.get(other.id)!.refusal === null) : null;
    const accepted = acceptedBy.get(row.id)!;
    const limits = limitsOf.get(row.id)!;
    const down = offline.filter((name) => allowedOf(row).includes(name) && accepted.some((host) => host.name === name));
    // The offline hosts are the cause where, reporting, they would let it start earlier (or at all).
    const online = down.length > 0 ? (estimateStarts([entry], estimateHosts, booked, nowMs, ESTIMATE_HORIZON_MS).get(row.id) ?? null) : null;
    const offlineHolds = online !== null && (alone === null || alone > online);
    const { reason, estimatedStartMs } = waitingBecause({
      nowMs,
      limit: limits.refusal,
      hosts: limits.hosts,
      unbooked: work,
      offline: offlineHolds ? down : [],
      ahead,
      bookers: holding.filter((bookedBy) => accepted.some((host) => host.name === bookedBy.hostName) && allowedOf(row).includes(bookedBy.hostName)),
      slurm: slurmHolding.filter((hold) => accepted.some((host) => host.name === hold.hostName) && allowedOf(row).includes(hold.hostName)),
      plannedStartMs,
      nodes: nodesNow(shapes.get(row.id) ?? null, nodesOf.get(row.id), accepted, busy, modelIds.get(row.id), nowMs, row.durationMinutes),
    });
    estimates.set(row.id, { startMs: estimatedStartMs, waitsForUnbookedWork: work && { gpus: work.gpus, people: work.people }, because: reason });
  }
  return estimates;
}

/** The hosts that are offline by the live fleet's rule (known and silent, or never connected); none outside a running server. */
function offlineHosts(hosts: { id: string; name: string }[], live: ReturnType<typeof liveGpuSource>): string[] {
  if (!live) return [];
  const online = new Set(live.current().hosts.flatMap((host) => (host.online ? [host.id] : [])));
  return hosts.flatMap((host) => (online.has(host.id) ? [] : [host.name]));
}

/** What a waiting request across nodes asks for; null for one host, and for one whose stored shape no longer reads (the grant passes it over). */
function shapeOf(row: Row): MultiNodeShapeRequest | null {
  try {
    return readWaitingMultiNode(row.multiNode);
  } catch {
    return null;
  }
}

/** Each node of a request across nodes: its host (null: any) and its GPUs; undefined for a request of one host. */
function nodesWanted(shape: MultiNodeShapeRequest | null): { hostName: string | null; count: number }[] | undefined {
  if (!shape) return undefined;
  if (shape.parts) return shape.parts.map((part) => ({ hostName: part.host, count: typeof part.gpus === "number" ? part.gpus : part.gpus.length }));
  return Array.from({ length: shape.nodes ?? 0 }, () => ({ hostName: null, count: shape.gpusPerNode ?? 0 }));
}

/**
 * What a request across nodes needs and how many hosts could take a node
 * now (their GPUs of the model free for the whole window): the reason
 * says "needs 2 hosts with 8 free H100 each: 1 has them now".
 */
function nodesNow(
  shape: MultiNodeShapeRequest | null,
  nodes: { hostName: string | null; count: number }[] | undefined,
  accepted: { name: string; gpus: { id: string }[] }[],
  busy: { gpuId: string; startMs: number; endMs: number }[],
  modelIds: ReadonlySet<string> | undefined,
  nowMs: number,
  durationMinutes: number,
): WaitFacts["nodes"] {
  if (!shape || !nodes) return null;
  const freeNow = accepted.filter((host) => {
    const wanted = Math.min(...nodes.filter((node) => node.hostName === null || node.hostName === host.name).map((node) => node.count));
    const ids = host.gpus.map((gpu) => gpu.id).filter((id) => modelIds?.has(id) ?? true);
    return freeGpuIds(ids, busy, nowMs, nowMs + durationMinutes * 60_000).length >= wanted;
  });
  return { count: nodes.length, perNode: shape.parts ? null : (shape.gpusPerNode ?? null), model: shape.model ?? null, hosts: shape.parts?.map((part) => part.host) ?? null, freeNow: freeNow.map((host) => host.name) };
}

type RankedRow = { row: Row; reason: string; teamName: string | null };

/** The nearest request ahead that competes for the same GPUs (same host, or either accepts any) and that the grant would serve now (`competes`). */
function requestAhead(ranked: RankedRow[], at: number, people: Map<string, Booker>, competes: (row: Row) => boolean): { position: number; person: string; team: string | null } | null {
  const row = ranked[at]!.row;
  for (let i = at - 1; i >= 0; i--) {
    const other = ranked[i]!;
    if (row.hostName !== null && other.row.hostName !== null && other.row.hostName !== row.hostName) continue;
    if (!competes(other.row)) continue;
    const person = people.get(other.row.userId);
    return { position: i + 1, person: person ? person.name || person.username : other.row.userId, team: other.teamName };
  }
  return null;
}

/** Slurm's own jobs and the reservations gpudesk did not make that hold GPUs now (server/slurm/slurm-calendar.ts), as a reason names them. */
function slurmNow(nowMs: number): WaitingForSlurm[] {
  return listSlurmBlocks(new Date(nowMs), new Date(nowMs + 1)).map((block) => {
    const hold = slurmHoldOf(block);
    return {
      kind: block.kind,
      id: block.id,
      user: block.user,
      state: block.state,
      hostName: block.hostName,
      gpuIndices: block.gpus.map((gpu) => gpu.index),
      until: hold.until,
      ...(hold.noTimeLimit ? { noTimeLimit: true as const } : {}),
    };
  });
}

/** Bookings that hold a unit now, with their person and end. */
async function bookersNow(nowMs: number): Promise<{ person: string; hostName: string; gpuIndex: number; mig?: UnitName["mig"]; untilMs: number }[]> {
  const now = new Date(nowMs);
  const rows = await readUnitsHeldAt(db(), now);
  return rows.map((held) => ({
    person: held.reservation.user.name || held.reservation.user.username || "someone",
    hostName: held.gpu.host.name,
    gpuIndex: held.gpu.index,
    // A slice is named as everywhere ("GPU 0:2 (1g.10gb)").
    ...(held.gpu.migDeviceIndex !== null ? { mig: storedUnit(held.gpu).mig } : {}),
    untilMs: held.endsAt.getTime(),
  }));
}

/**
 * What the limits say of a grant now: the refusal a booking of the request
 * starting now would meet (checkBookingLimits, as the grant runs it), and
 * per accepted host why it can never hold the request (too few GPUs, no
 * host rule for it). Hosts open only at other times make a "hosts" refusal
 * with the earliest opening.
 */
async function limitsFor(
  row: Row,
  person: Booker | undefined,
  accepted: { name: string; gpus: { id: string }[]; usable?: number }[],
  nowMs: number,
  nodes?: { hostName: string | null; count: number }[],
): Promise<{ refusal: QuotaRefusal | null; hosts: { name: string; excludedBy: string | null }[] }> {
  const client = db();
  const team = await entryTeam(client, row.userId, row.teamId ?? null);
  const scope = { userId: row.userId, username: person?.username ?? row.userId, team };
  const limits = await effectiveLimits(client, scope);
  const endMs = nowMs + row.durationMinutes * 60_000;
  const hostRefusals = accepted.map((host) => refuseHost(limits, host.name, nowMs, endMs));
  // What each host must hold: the whole request, or across nodes one node's GPUs (of the model).
  const need = (host: { name: string }) => (nodes ? Math.min(...nodes.filter((node) => node.hostName === null || node.hostName === host.name).map((node) => node.count)) : row.gpuCount);
  const hosts = accepted.map((host, i) => {
    const has = host.usable ?? host.gpus.length;
    if (has < need(host)) return { name: host.name, excludedBy: `${host.name} has ${has} GPU${has === 1 ? "" : "s"}${nodes && host.usable !== undefined && host.usable !== host.gpus.length ? " of the model" : ""}` };
    const refusal = hostRefusals[i];
    return { name: host.name, excludedBy: refusal && refusal.quota.freesAt === null ? refusal.message : null };
  });
  const open = accepted.filter((host, i) => hosts[i]!.excludedBy === null && hostRefusals[i] === null);
  if (open.length === 0) {
    const later = hostRefusals.filter((refusal, i) => refusal && hosts[i]!.excludedBy === null).sort((a, b) => Date.parse(a!.quota.freesAt!) - Date.parse(b!.quota.freesAt!));
    return { refusal: later[0]?.quota ?? null, hosts };
  }
  const first = open[0]!;
  try {
    await checkBookingLimits(
      client,
      scope,
      { hostName: first.name, startMs: nowMs, endMs, gpus: row.gpuCount, gpuIds: (nodes ? open.flatMap((host) => host.gpus) : first.gpus).slice(0, row.gpuCount).map((gpu) => gpu.id), totalMinutes: row.durationMinutes },
      limits,
    );
    return { refusal: null, hosts };
  } catch (error) {
    if (error instanceof QuotaExceededError) return { refusal: error.quota, hosts };
    throw error;
  }
}

/** The queue, in order of service (fair share): everyone's waiting requests with their estimated starts and why they stand there, so that a team sees who waits for what. */
export async function listWaitlist(now = new Date()): Promise<WaitlistView[]> {
  const ranked = await orderByFairShare(db(), await waitingRows(), now.getTime());
  const rows = ranked.map((entry) => entry.row);
  const [people, estimates] = await Promise.all([bookers(rows.map((row) => row.userId)), estimatesOf(ranked, now.getTime())]);
  return ranked.map((entry, at) => view(entry.row, people.get(entry.row.userId) ?? { username: entry.row.userId, name: "" }, at + 1, estimates.get(entry.row.id), entry));
}

/** Recently granted requests stay in "mine" this long, so that someone who was away still learns of the grant. */
const RECENT_GRANTS_MS = 24 * 3600_000;

/** The asker's waiting requests (place and estimate) and those granted in the last day. */
export async function listMyWaitlist(actor: Actor, now = new Date()): Promise<WaitlistView[]> {
  const queue = await listWaitlist(now);
  const granted = await db().waitlistEntry.findMany({
    where: { userId: actor.id, status: "granted", grantedAt: { gte: new Date(now.getTime() - RECENT_GRANTS_MS) } },
    orderBy: { grantedAt: "desc" },
    select: SELECT,
  });
  return [...queue.filter((entry) => entry.bookedBy.id === actor.id), ...granted.map((row) => view(row, actor, null))];
}

/** One request of the asker's (any, for an admin), with its place in the queue while it waits. */
export async function getWaitlistEntry(actor: Actor, id: string): Promise<WaitlistView> {
  const row = await db().waitlistEntry.findUnique({ where: { id }, select: SELECT });
  if (!row || !can.manageWaitlistEntry(actor, row)) throw new AppError("not_found", "No such waiting request");
  if (row.status === "waiting") {
    const queued = (await listWaitlist()).find((entry) => entry.id === id);
    if (queued) return queued;
  }
  const people = await bookers([row.userId]);
  return view(row, people.get(row.userId) ?? { username: row.userId, name: "" }, null);
}

/**
 * Withdraws a waiting request; one already granted stays a booking
 * (release that instead). Audited, with whose request it was: an admin's
 * removal of someone else's is on the record as theirs.
 */
export async function leaveWaitlist(actor: Actor, id: string): Promise<WaitlistView> {
  const row = await db().waitlistEntry.findUnique({ where: { id }, select: { userId: true } });
  if (!row || !can.manageWaitlistEntry(actor, row)) throw new AppError("not_found", "No such waiting request");
  await db().$transaction(async (tx) => {
    const left = await tx.waitlistEntry.updateMany({ where: { id, status: "waiting" }, data: { status: "left" } });
    if (left.count === 0) return;
    await writeAudit(tx, { actorId: actor.id, action: "waitlist.leave", entityType: "waitlist", entityId: id, before: { status: "waiting", userId: row.userId }, after: { status: "left", byOwner: actor.id === row.userId } });
  });
  return getWaitlistEntry(actor, id);
}
