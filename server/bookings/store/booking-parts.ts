import type { Prisma, PrismaClient } from "@prisma/client";

type Client = PrismaClient | Prisma.TransactionClient;

/**
 * Who holds a booking (or a part of one across nodes) and where: what a
 * command reads before it takes the write lock, and what a permission check
 * (`can.manageBooking`) and a notice need. Null when there is no such row.
 */
export async function readBookingOwner(client: Client, id: string): Promise<{ userId: string; hostId: string; groupId: string | null; teamId: string | null } | null> {
  return client.reservation.findUnique({ where: { id }, select: { userId: true, hostId: true, groupId: true, teamId: true } });
}

/** Every part id of the booking that `id` is a part of (itself alone for a one-host booking), in rank order. */
export async function partIdsOf(client: Client, id: string): Promise<string[]> {
  const row = await client.reservation.findUnique({ where: { id }, select: { groupId: true } });
  if (!row?.groupId) return [id];
  const parts = await client.reservation.findMany({ where: { groupId: row.groupId }, orderBy: { nodeRank: "asc" }, select: { id: true } });
  return parts.map((part) => part.id);
}

/** The hosts of these parts (one per part, in the order the database gives): the hosts a command locks. */
export async function readPartHostIds(client: Client, ids: string[]): Promise<string[]> {
  return (await client.reservation.findMany({ where: { id: { in: ids } }, select: { hostId: true } })).map((part) => part.hostId);
}

/** The hosts that hold a node of the booking across nodes `groupId`. */
export async function readGroupHostIds(client: Client, groupId: string): Promise<string[]> {
  return (await client.reservation.findMany({ where: { groupId }, select: { hostId: true } })).map((part) => part.hostId);
}

/** A node of a booking across nodes as a spare for it is sought: its booking, host, times and unit models. */
export async function readPartForSpare(client: Client, partId: string) {
  return client.reservation.findUnique({
    where: { id: partId },
    select: { groupId: true, hostId: true, startsAt: true, endsAt: true, gpus: { select: { gpu: { select: { name: true } } } } },
  });
}

/** Each node of a booking across nodes, in rank order: its host and unit models (its label, "2 × 4 H100 on node-a and node-b"). */
export async function readGroupNodes(client: Client, groupId: string): Promise<{ host: { name: string }; gpus: { gpu: { name: string } }[] }[]> {
  return client.reservation.findMany({ where: { groupId }, orderBy: { nodeRank: "asc" }, select: { host: { select: { name: true } }, gpus: { select: { gpu: { select: { name: true } } } } } });
}

const multiNodePartSelect = {
  id: true,
  userId: true,
  groupId: true,
  nodeRank: true,
  host: { select: { id: true, name: true, fabric: true } },
  gpus: { select: { gpu: { select: { uuid: true, index: true, name: true } } } },
} satisfies Prisma.ReservationSelect;

export type MultiNodePartRow = Prisma.ReservationGetPayload<{ select: typeof multiNodePartSelect }>;

/**
 * For the bookings among `ids` that are parts of a booking across nodes:
 * each one's booking (`groupOf`: part id → booking id) and every part of
 * those bookings, in rank order. Empty for one-host bookings.
 */
export async function readMultiNodeParts(client: Client, ids: string[]): Promise<{ groupOf: Map<string, string>; parts: MultiNodePartRow[] }> {
  const own = await client.reservation.findMany({ where: { id: { in: ids }, groupId: { not: null } }, select: { id: true, groupId: true } });
  const groupOf = new Map(own.map((row) => [row.id, row.groupId as string]));
  if (own.length === 0) return { groupOf, parts: [] };
  const parts = await client.reservation.findMany({ where: { groupId: { in: [...new Set(groupOf.values())] } }, orderBy: { nodeRank: "asc" }, select: multiNodePartSelect });
  return { groupOf, parts };
}
