import type { GrantNotice } from "@/lib/domain/waitlist-schema";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import type { ServiceOptions } from "@/server/access/actor";
import type { Tx } from "@/server/bookings/store/booking-transaction";
import { createBooking } from "@/server/bookings/commands/create-booking";
import type { LiveGpuSource } from "@/server/bookings/placement/gpu-in-use";
import { orderByFairShare } from "@/server/waitlist/fair-share";
import { unitsPhrase } from "@/lib/domain/gpu-availability";
import { type Actor } from "@/server/access/actor";
import { createMultiNodeBooking } from "@/server/bookings/commands/create-multi-node";
import { readWaitingMultiNode } from "@/server/waitlist/waiting-multi-node";
import { effectiveLimits } from "@/server/bookings/rules/check-limits";
import { entryTeam } from "@/server/waitlist/entry-team";
import { ruleFor } from "@/lib/domain/host-rule-match";
import type { HostRule } from "@/lib/domain/team-schema";
import { isAdminRole } from "@/lib/domain/roles";

/** A waiting request that became a booking: what its person is told. */
export type Grant = GrantNotice;

/**
 * Serves the waitlist: in order of fair share (the team that used least of
 * its share first, waiting time raising priority, arrival order between
 * equals: server/waitlist/fair-share.ts), each waiting request that fits
 * now becomes a booking (through createBooking, so the same
 * transaction guards double booking). A request that does not fit keeps its
 * place and holds back later requests that compete for the same GPUs (same
 * host, or any host), so that small requests cannot overtake it forever.
 * Call when bookings end or change; returns who was granted what, to tell them.
 */
export async function grantWaiting(options: ServiceOptions & { fleet?: LiveGpuSource } = {}): Promise<Grant[]> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  await client.waitlistEntry.updateMany({ where: { status: "waiting", expiresAt: { lte: now } }, data: { status: "expired" } });
  const waiting = await client.waitlistEntry.findMany({
    where: { status: "waiting" },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, userId: true, hostName: true, multiNode: true, gpuCount: true, minFreeMemoryMiB: true, durationMinutes: true, purpose: true, teamId: true, createdAt: true },
  });
  const entries = (await orderByFairShare(client, waiting, now.getTime())).map((ranked) => ranked.row);

  const blockedHosts = new Set<string>();
  // Host rules of "any host" requests that did not fit: they hold back the hosts their rules allow, not every host.
  const blockedRules: (readonly HostRule[])[] = [];
  const isBlocked = (host: string) => blockedHosts.has(host) || blockedRules.some((rules) => ruleFor(rules, host) !== null);
  let blockedAnyHost = false;
  const grants: Grant[] = [];
  for (const entry of entries) {
    let multiNode: ReturnType<typeof readWaitingMultiNode>;
    try {
      multiNode = readWaitingMultiNode(entry.multiNode);
    } catch {
      // Stored by an older or broken writer: passed over, it expires in its time; nothing is booked half.
      continue;
    }
    // The hosts it competes for: its one host, the parts it names, or any (null).
    const wanted = multiNode?.parts ? multiNode.parts.map((part) => part.host) : entry.hostName === null ? null : [entry.hostName];
    if (blockedAnyHost || (wanted === null ? blockedHosts.size > 0 || blockedRules.length > 0 : wanted.some(isBlocked))) continue;
    const user = await client.user.findUnique({ where: { id: entry.userId }, select: { id: true, username: true, name: true, role: true, unixLogin: true } });
    if (!user || !user.username) {
      await client.waitlistEntry.update({ where: { id: entry.id }, data: { status: "expired" } });
      continue;
    }
    const actor: Actor = { id: user.id, username: user.username, name: user.name, role: isAdminRole(user.role) ? "admin" : "member", unixLogin: user.unixLogin };
    try {
      if (multiNode) {
        // Granted whole: every part in one transaction, the entry claimed in it (create-multi-node.ts), or nothing.
        const booking = await createMultiNodeBooking(
          actor,
          { ...multiNode, durationMinutes: entry.durationMinutes, purpose: entry.purpose, ...(entry.teamId ? { team: entry.teamId } : {}) },
          { now, client, fleet: options.fleet, claim: claimEntry(entry.id, now) },
        );
        grants.push({
          entryId: entry.id,
          userId: user.id,
          reservationId: booking.id,
          hostName: booking.parts.map((part) => part.host.name).join(" and "),
          // Node 1's GPUs; `units` names the whole booking ("2 × 8 H100") and each part carries its own.
          gpuIndices: booking.parts[0]?.gpus.map((gpu) => gpu.index) ?? [],
          units: booking.label,
          startsAt: booking.startsAt,
          endsAt: booking.endsAt,
          purpose: booking.purpose,
          explanation: booking.explanation ?? null,
        });
        continue;
      }
      const booking = await createBooking(
        actor,
        {
          count: entry.gpuCount,
          ...(entry.hostName ? { host: entry.hostName } : {}),
          ...(entry.minFreeMemoryMiB !== null ? { minFreeMemoryMiB: entry.minFreeMemoryMiB } : {}),
          durationMinutes: entry.durationMinutes,
          purpose: entry.purpose,
          ...(entry.teamId ? { team: entry.teamId } : {}),
        },
        { now, client, fleet: options.fleet, claim: claimEntry(entry.id, now) },
      );
      grants.push({
        entryId: entry.id,
        userId: user.id,
        reservationId: booking.id,
        hostName: booking.host.name,
        gpuIndices: booking.gpus.map((gpu) => gpu.index),
        units: unitsPhrase(booking.gpus),
        startsAt: booking.startsAt,
        endsAt: booking.endsAt,
        purpose: booking.purpose,
        explanation: booking.explanation ?? null,
      });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // Not now: a conflict holds back who competes for the same GPUs; any
      // other refusal (e.g. the person's own GPU limit) only this request.
      if (error.code === "conflict") {
        if (wanted !== null) for (const host of wanted) blockedHosts.add(host);
        else {
          // A request for any host that a host rule keeps to some hosts (a team that may book one host) competes for those only.
          const rules = (await effectiveLimits(client, { userId: user.id, username: user.username, team: await entryTeam(client, entry.userId, entry.teamId) })).hosts?.value;
          if (rules) blockedRules.push(rules);
          else blockedAnyHost = true;
        }
      }
    }
  }
  return grants;
}

/**
 * The grant takes the entry before it books, in the booking's transaction:
 * a conditional update that only a still-waiting entry passes. A person who
 * left (DELETE, or Ctrl-C in `gpudesk reserve --wait`) in the meantime gets
 * nothing; one who leaves after it finds the entry granted and can release.
 */
function claimEntry(entryId: string, now: Date) {
  return {
    async before(tx: Tx) {
      const claimed = await tx.waitlistEntry.updateMany({ where: { id: entryId, status: "waiting" }, data: { status: "granted", grantedAt: now } });
      if (claimed.count === 0) throw new AppError("not_found", "The waiting request was withdrawn before its grant");
    },
    async after(tx: Tx, bookingId: string) {
      await tx.waitlistEntry.update({ where: { id: entryId }, data: { reservationId: bookingId } });
    },
  };
}
