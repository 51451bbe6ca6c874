import type { Prisma, PrismaClient } from "@prisma/client";
import { gpuShareOf } from "@/lib/domain/gpu-share";
import type { GpuRange } from "@/server/bookings/rules/gpu-hours";
import { accountingTeams } from "@/server/bookings/rules/booking-team";
import { readBookedUnitRanges } from "@/server/bookings/store/booked-units";

type Client = Prisma.TransactionClient | PrismaClient;

/** What a unit's share of its GPU is computed from. */
const shareSelect = { migProfile: true, name: true } as const;

/** GPUs' worth of these units together (a whole GPU 1, slices their share): what a booking of them adds per hour to GPU-hours. */
export async function gpuShareOfIds(client: Client, gpuIds: readonly string[]): Promise<number> {
  const gpus = await client.gpu.findMany({ where: { id: { in: [...gpuIds] } }, select: shareSelect });
  // A unit removed from the inventory meanwhile counts as a whole GPU.
  return gpus.reduce((sum, gpu) => sum + gpuShareOf(gpu), 0) + (gpuIds.length - gpus.length);
}

/** Whose bookings: one person's, every booking that counts for a team, or one person's that count for one team. */
export type BookingOwner = { userId: string; teamId?: string } | { teamId: string };

/**
 * The people whose bookings that name no team count for this team: those
 * whose accounting team it is (the team a booking is for when none is
 * named: bookingTeam's rule, the accounting membership first, else the
 * oldest). A booking made before its person joined, or one made without a
 * team, so counts for the team the person books for now.
 */
async function accountingMembers(client: Client, teamId: string): Promise<string[]> {
  const members = await client.teamMember.findMany({ where: { teamId }, select: { userId: true } });
  const teamOf = await accountingTeams(client, members.map((member) => member.userId));
  return [...teamOf].flatMap(([userId, team]) => (team === teamId ? [userId] : []));
}

/** The bookings that count for an owner: a team's named it, or named none and are its accounting members'. */
async function ownerWhere(client: Client, owner: BookingOwner): Promise<Prisma.ReservationWhereInput> {
  if (owner.teamId === undefined) return { userId: (owner as { userId: string }).userId };
  const accounting = await accountingMembers(client, owner.teamId);
  const person = "userId" in owner ? [owner.userId] : null;
  const unnamed = person ? accounting.filter((id) => person.includes(id)) : accounting;
  return {
    ...(person ? { userId: person[0] } : {}),
    OR: [{ teamId: owner.teamId }, ...(unnamed.length > 0 ? [{ teamId: null, userId: { in: unnamed } }] : [])],
  };
}

/**
 * The GPU ranges of an owner's bookings that share time with [fromMs, toMs),
 * one per booked unit (ReservationGpu rows carry the time; releasing moves
 * their end, so what was given back early does not count), each weighing
 * its unit's share of a GPU (lib/domain/gpu-share.ts: a 1g.10gb slice of an H100
 * is 1/7). Counting units at once (the GPUs-at-once limit) counts ranges,
 * not their weight. A team's are the bookings made for it and those that
 * named no team of its accounting members, whenever they were made.
 */
export async function bookedRanges(client: Client, owner: BookingOwner, fromMs: number, toMs: number): Promise<GpuRange[]> {
  const rows = await readBookedUnitRanges(client, new Date(fromMs), new Date(toMs), await ownerWhere(client, owner));
  return rows.flatMap((row) => (row.endsAt > row.startsAt ? [{ startMs: row.startsAt.getTime(), endMs: row.endsAt.getTime(), gpus: gpuShareOf(row.gpu) }] : []));
}

/**
 * Every booked GPU range in [fromMs, toMs), grouped by the team it counts
 * for (`countsForTeam`: the team it named, else its person's accounting
 * team, as for the limits; null: neither; the queue's fair share), by its
 * person, its host or both (`personHostKey`: the usage report's booked
 * GPU-hours); `userIds`
 * narrows to those people, `realPeopleOnly` leaves out the simulated
 * fleet's demo people (whose history the report takes from its minutes).
 */
export async function bookedRangesBy(
  client: Client,
  key: "countsForTeam" | "userId" | "hostId" | "userHost",
  fromMs: number,
  toMs: number,
  userIds?: readonly string[],
  realPeopleOnly = false,
): Promise<Map<string | null, GpuRange[]>> {
  const booking = { ...(userIds ? { userId: { in: [...userIds] } } : {}), ...(realPeopleOnly ? { user: { simulated: false } } : {}) };
  const rows = await readBookedUnitRanges(client, new Date(fromMs), new Date(toMs), userIds || realPeopleOnly ? booking : undefined);
  const accounting =
    key === "countsForTeam" ? await accountingTeams(client, rows.flatMap((row) => (row.reservation.teamId === null ? [row.reservation.userId] : []))) : new Map<string, string>();
  const groupOf = (booking: { teamId: string | null; userId: string; hostId: string }): string | null => {
    if (key === "userHost") return personHostKey(booking.userId, booking.hostId);
    if (key === "countsForTeam") return booking.teamId ?? accounting.get(booking.userId) ?? null;
    return booking[key];
  };
  const byKey = new Map<string | null, GpuRange[]>();
  for (const row of rows) {
    if (row.endsAt <= row.startsAt) continue;
    const group = groupOf(row.reservation);
    const list = byKey.get(group) ?? [];
    list.push({ startMs: row.startsAt.getTime(), endMs: row.endsAt.getTime(), gpus: gpuShareOf(row.gpu) });
    byKey.set(group, list);
  }
  return byKey;
}

/** The key of one person's bookings on one host in `bookedRangesBy(…, "userHost", …)`. */
export const personHostKey = (userId: string, hostId: string) => `${userId}\u0000${hostId}`;
