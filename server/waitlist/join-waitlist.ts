import { countedWrite } from "@/server/core/counted-write";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { effectiveLimits, refuseNeverFitting } from "@/server/bookings/rules/check-limits";
import type { Actor, ServiceOptions } from "@/server/access/actor";
import { bookingTeam } from "@/server/bookings/rules/booking-team";
import { orderByFairShare } from "@/server/waitlist/fair-share";
import { type MultiNodeShapeRequest, multiNodeGpuCount } from "@/lib/domain/booking-schema";
import { isOfModel } from "@/server/bookings/placement/pick-any-gpus";
import type { Tx } from "@/server/bookings/store/booking-transaction";
import { readPolicy } from "@/server/bookings/rules/policy";

/** Waiting requests one person may have at once, so that nobody can hold the queue. */
export const WAITING_PER_PERSON = 2;
/** A request that has waited this long is dropped rather than granted when the person has long gone. */
export const WAIT_MAX_MS = 24 * 3600_000;

export interface WaitRequest {
  count: number;
  host?: string;
  minFreeMemoryMiB?: number;
  durationMinutes: number;
  purpose: string;
  /** The team to book for (name or id). */
  team?: string;
  /** Across nodes: the nodes and GPUs per node (or the parts) and model; `count` is then every part's GPUs together and `host` absent. */
  multiNode?: MultiNodeShapeRequest;
}

/** A request across nodes in the form joinWaitlist takes: the shape, with the GPUs of every part as its count. */
export function multiNodeWait(request: MultiNodeShapeRequest & { durationMinutes: number; purpose: string; team?: string }): WaitRequest {
  const { nodes, gpusPerNode, model, parts, ...common } = request;
  const multiNode = parts ? { parts, ...(model !== undefined ? { model } : {}) } : { nodes, gpusPerNode, ...(model !== undefined ? { model } : {}) };
  return { ...common, count: multiNodeGpuCount(request), multiNode };
}

export interface WaitingEntry {
  id: string;
  /** 1 for the next request to be served. */
  position: number;
  expiresAt: string;
}

/**
 * Queues a request for "N GPUs" that cannot be served now. grantWaiting
 * turns it into a booking when GPUs free up, in fair-share order.
 */
export async function joinWaitlist(actor: Actor, request: WaitRequest, options: ServiceOptions = {}): Promise<WaitingEntry> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  // Early, so that a person at the limit is told so before the checks below; counted again where it holds, at the write.
  await refuseOverWaitingLimit(client, actor.id);
  if (request.multiNode) await refuseNodesNeverFitting(client, request.multiNode);
  else {
    if (request.host !== undefined && !(await client.host.findUnique({ where: { name: request.host }, select: { id: true } }))) {
      throw new AppError("bad_request", `There is no host named ${request.host}`, { host: `There is no host named ${request.host}` });
    }
    // Waiting only helps when GPUs can free up: a request no host is big enough for would wait forever.
    const hosts = await client.host.findMany({ where: request.host !== undefined ? { name: request.host } : {}, select: { _count: { select: { gpus: true } } } });
    if (!hosts.some((host) => host._count.gpus >= request.count)) {
      const message = `${request.host ?? "No host"}${request.host ? " does not have" : " has"} ${request.count} GPU${request.count > 1 ? "s" : ""}`;
      throw new AppError("bad_request", message, { count: message });
    }
  }
  // A named team is checked now (the person must be in it); none named: the accounting team at grant time.
  const team = request.team !== undefined ? await bookingTeam(client, actor.id, request.team) : null;
  // Over a limit that no freed GPU can change (more GPUs than the person may hold at once, …): refused now, not when it expires.
  const scope = { userId: actor.id, username: actor.username, team: team ?? (await bookingTeam(client, actor.id, undefined)) };
  const limits = await client.$transaction((tx) => effectiveLimits(tx, scope));
  // More GPUs than anyone may hold at once (the policy) would wait forever too.
  const policy = await readPolicy(client);
  if (request.count > policy.maxGpusPerUser) {
    const message = `This request asks for ${request.count} GPUs; a person may hold at most ${policy.maxGpusPerUser} at once, so it would wait forever`;
    throw new AppError("bad_request", message, { [request.multiNode ? (request.multiNode.parts ? "parts" : "gpusPerNode") : "count"]: message });
  }
  const never = refuseNeverFitting(limits, { hostName: request.multiNode ? null : (request.host ?? null), gpus: request.count, minutes: request.durationMinutes });
  if (never) throw never;
  const entry = await countedWrite(actor.id, async (tx) => {
    await refuseOverWaitingLimit(tx, actor.id);
    return tx.waitlistEntry.create({
      data: {
        userId: actor.id,
        hostName: request.multiNode ? null : (request.host ?? null),
        gpuCount: request.count,
        multiNode: request.multiNode ? JSON.stringify(request.multiNode) : null,
        minFreeMemoryMiB: request.minFreeMemoryMiB ?? null,
        durationMinutes: request.durationMinutes,
        purpose: request.purpose,
        teamId: team?.id ?? null,
        createdAt: now,
        expiresAt: new Date(now.getTime() + WAIT_MAX_MS),
      },
      select: { id: true, createdAt: true, expiresAt: true },
    });
  }, client);
  const queue = await client.waitlistEntry.findMany({ where: { status: "waiting" }, select: { id: true, userId: true, teamId: true, createdAt: true } });
  const order = await orderByFairShare(client, queue, now.getTime());
  const position = order.findIndex((ranked) => ranked.row.id === entry.id) + 1;
  return { id: entry.id, position: position > 0 ? position : order.length, expiresAt: (entry.expiresAt ?? now).toISOString() };
}

/** Refuses a waiting request past WAITING_PER_PERSON; inside countedWrite, where the count holds. */
async function refuseOverWaitingLimit(client: Tx, userId: string): Promise<void> {
  const waiting = await client.waitlistEntry.count({ where: { userId, status: "waiting" } });
  if (waiting >= WAITING_PER_PERSON) {
    throw new AppError("bad_request", `You already wait for ${waiting} requests; at most ${WAITING_PER_PERSON} per person`);
  }
}

/**
 * A request across nodes waits only where enough hosts could ever hold it:
 * `nodes` hosts with `gpusPerNode` GPUs of the model, or each named host
 * with its part's GPUs (those it names by index among them). Otherwise it
 * would wait forever: refused now.
 */
async function refuseNodesNeverFitting(client: Tx, shape: MultiNodeShapeRequest): Promise<void> {
  const named = shape.parts?.map((part) => part.host);
  const hosts = await client.host.findMany({ where: named ? { name: { in: named } } : {}, select: { name: true, gpus: { where: { migDeviceIndex: null }, select: { name: true, index: true } } } });
  const gpusOf = (host: (typeof hosts)[number]) => host.gpus.filter((gpu) => isOfModel(gpu.name, shape.model)).length;
  const what = (count: number) => `${count}${shape.model ? ` ${shape.model}` : ""} GPU${count === 1 ? "" : "s"}`;
  if (shape.parts) {
    for (const part of shape.parts) {
      const host = hosts.find((candidate) => candidate.name === part.host);
      if (!host) throw new AppError("bad_request", `There is no host named ${part.host}`, { parts: `There is no host named ${part.host}` });
      // GPUs named by index must be the host's, or the request would wait for GPUs that never free up.
      const missing = Array.isArray(part.gpus) ? part.gpus.filter((index) => !host.gpus.some((gpu) => gpu.index === index)) : [];
      if (missing.length > 0) {
        const message = `${part.host} has no GPU ${missing.join(", ")} (its GPUs: ${host.gpus.map((gpu) => gpu.index).sort((a, b) => a - b).join(", ") || "none"})`;
        throw new AppError("bad_request", message, { parts: message });
      }
      const wanted = typeof part.gpus === "number" ? part.gpus : part.gpus.length;
      if (gpusOf(host) < wanted) throw new AppError("bad_request", `${part.host} does not have ${what(wanted)}`, { parts: `${part.host} does not have ${what(wanted)}` });
    }
    return;
  }
  const nodes = shape.nodes ?? 0;
  const big = hosts.filter((host) => gpusOf(host) >= (shape.gpusPerNode ?? 0)).length;
  if (big < nodes) {
    const message = `${big === 0 ? "No host has" : `Only ${big} host${big === 1 ? " has" : "s have"}`} ${what(shape.gpusPerNode ?? 0)}; ${nodes} nodes asked for, so it would wait forever`;
    throw new AppError("bad_request", message, { nodes: message });
  }
}
