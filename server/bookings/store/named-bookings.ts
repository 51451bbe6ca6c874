import type { Prisma, PrismaClient } from "@prisma/client";
import { storedUnit, unitsPhrase } from "@/lib/domain/gpu-availability";
import { acrossNodesPhrase } from "@/lib/domain/multi-node";

type Client = PrismaClient | Prisma.TransactionClient;

/** A booking as a link names it: a booking across nodes once, by its booking id (the node-0 part's), with every node. */
export interface NamedBooking {
  /** The booking's id: the row's own, or across nodes its booking's. */
  id: string;
  bookedById: string;
  /** "GPUs 0, 1 on node-a", "2 × 8 H100 on h100-03 and h100-04". */
  name: string;
  /** The bookings it is made of (one, or every part), and their hosts. */
  partIds: string[];
  hostIds: string[];
  startsAt: Date;
  endsAt: Date;
}

const select = {
  id: true,
  userId: true,
  groupId: true,
  nodeRank: true,
  hostId: true,
  startsAt: true,
  endsAt: true,
  host: { select: { name: true } },
  gpus: { select: { gpu: { select: { index: true, name: true, migDeviceIndex: true, migProfile: true } } } },
} satisfies Prisma.ReservationSelect;

/**
 * The bookings that are these rows (`ids`), or that hold a unit of
 * one of `hostIds` at some time in [from, to) (released and cancelled ones
 * too: they held it then), each once with its name: what an alert about a
 * host or a GPU links to. At most `limit` per query, the latest first.
 */
export async function namedBookings(client: Client, query: { ids?: readonly string[]; hostIds?: readonly string[]; from?: Date; to?: Date; limit?: number }): Promise<NamedBooking[]> {
  const or: Prisma.ReservationWhereInput[] = [];
  if (query.ids && query.ids.length > 0) or.push({ id: { in: [...query.ids] } });
  if (query.hostIds && query.hostIds.length > 0 && query.from && query.to) {
    or.push({ hostId: { in: [...query.hostIds] }, startsAt: { lt: query.to }, endsAt: { gt: query.from }, gpus: { some: {} } });
  }
  if (or.length === 0) return [];
  const found = await client.reservation.findMany({ where: { OR: or }, orderBy: { startsAt: "desc" }, take: query.limit ?? 50, select });
  const groups = [...new Set(found.flatMap((row) => (row.groupId ? [row.groupId] : [])))];
  const parts = groups.length === 0 ? [] : await client.reservation.findMany({ where: { groupId: { in: groups } }, orderBy: { nodeRank: "asc" }, select });
  const named = new Map<string, NamedBooking>();
  for (const row of found) {
    const id = row.groupId ?? row.id;
    if (named.has(id)) continue;
    const rows = row.groupId ? parts.filter((part) => part.groupId === row.groupId) : [row];
    const name = row.groupId
      ? acrossNodesPhrase(rows.map((part) => ({ host: part.host, gpus: part.gpus.map(({ gpu }) => gpu) })))
      : `${unitsPhrase(row.gpus.map(({ gpu }) => storedUnit(gpu)).sort((a, b) => a.index - b.index))} on ${row.host.name}`;
    named.set(id, { id, bookedById: row.userId, name, partIds: rows.map((part) => part.id), hostIds: rows.map((part) => part.hostId), startsAt: row.startsAt, endsAt: row.endsAt });
  }
  return [...named.values()];
}

/** The booking each row is (itself, or a part's booking across nodes), by row id; unknown ids are left out. */
export async function bookingIdsOf(client: Client, bookingIds: readonly string[]): Promise<Map<string, string>> {
  if (bookingIds.length === 0) return new Map();
  const rows = await client.reservation.findMany({ where: { id: { in: [...bookingIds] } }, select: { id: true, groupId: true } });
  return new Map(rows.map((row) => [row.id, row.groupId ?? row.id]));
}
