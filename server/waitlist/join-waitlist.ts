import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { effectiveLimits, refuseNeverFitting } from "@/server/limits/check-limits";
import type { Actor, ServiceOptions } from "@/server/core/actor";
import { bookingTeam } from "@/server/core/booking-team";
import { orderByFairShare } from "@/server/waitlist/fair-share";

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
}

export interface WaitingEntry {
  id: string;
  /** 1 for the next request to be served. */
  position: number;
  expiresAt: string;
}

/**
 * Queues a request for "N GPUs" that cannot be served now. grantWaiting
 * turns it into a reservation when GPUs free up, in fair-share order.
 */
export async function joinWaitlist(actor: Actor, request: WaitRequest, options: ServiceOptions = {}): Promise<WaitingEntry> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  const waiting = await client.waitlistEntry.count({ where: { userId: actor.id, status: "waiting" } });
  if (waiting >= WAITING_PER_PERSON) {
    throw new AppError("bad_request", `You already wait for ${waiting} requests; at most ${WAITING_PER_PERSON} per person`);
  }
  if (request.host !== undefined && !(await client.host.findUnique({ where: { name: request.host }, select: { id: true } }))) {
    throw new AppError("bad_request", `There is no host named ${request.host}`, { host: `There is no host named ${request.host}` });
  }
  // Waiting only helps when GPUs can free up: a request no host is big enough for would wait forever.
  const hosts = await client.host.findMany({ where: request.host !== undefined ? { name: request.host } : {}, select: { _count: { select: { gpus: true } } } });
  if (!hosts.some((host) => host._count.gpus >= request.count)) {
    const message = `${request.host ?? "No host"}${request.host ? " does not have" : " has"} ${request.count} GPU${request.count > 1 ? "s" : ""}`;
    throw new AppError("bad_request", message, { count: message });
  }
  // A named team is checked now (the person must be in it); none named: the accounting team at grant time.
  const team = request.team !== undefined ? await bookingTeam(client, actor.id, request.team) : null;
  // Over a limit that no freed GPU can change (more GPUs than the person may hold at once, …): refused now, not when it expires.
  const scope = { userId: actor.id, username: actor.username, team: team ?? (await bookingTeam(client, actor.id, undefined)) };
  const limits = await client.$transaction((tx) => effectiveLimits(tx, scope));
  const never = refuseNeverFitting(limits, { hostName: request.host ?? null, gpus: request.count, minutes: request.durationMinutes });
  if (never) throw never;
  const entry = await client.waitlistEntry.create({
    data: {
      userId: actor.id,
      hostName: request.host ?? null,
      gpuCount: request.count,
      minFreeMemoryMiB: request.minFreeMemoryMiB ?? null,
      durationMinutes: request.durationMinutes,
      purpose: request.purpose,
      teamId: team?.id ?? null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + WAIT_MAX_MS),
    },
    select: { id: true, createdAt: true, expiresAt: true },
  });
  const queue = await client.waitlistEntry.findMany({ where: { status: "waiting" }, select: { id: true, userId: true, teamId: true, createdAt: true } });
  const order = await orderByFairShare(client, queue, now.getTime());
  const position = order.findIndex((ranked) => ranked.row.id === entry.id) + 1;
  return { id: entry.id, position: position > 0 ? position : order.length, expiresAt: (entry.expiresAt ?? now).toISOString() };
}
