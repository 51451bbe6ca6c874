import type { Prisma, PrismaClient } from "@prisma/client";
import { ncclHints, parseStoredFabric } from "@/lib/domain/fabric";
import { launchSettings } from "@/lib/domain/launch-settings";
import { multiNodeLabel, partLabel, shapeOf } from "@/lib/domain/multi-node";
import type { MultiNodePart, ReservationView, ReservedGpu } from "@/lib/domain/reservation-types";
import { reservationClaimValue } from "@/server/bookings/rules/booking-proof";

type Client = PrismaClient | Prisma.TransactionClient;

const partSelect = {
  id: true,
  userId: true,
  groupId: true,
  nodeRank: true,
  host: { select: { id: true, name: true, fabric: true } },
  gpus: { select: { gpu: { select: { uuid: true, index: true, name: true } } } },
} satisfies Prisma.ReservationSelect;

type PartRow = Prisma.ReservationGetPayload<{ select: typeof partSelect }>;

/**
 * Adds to each view that is a part of a booking across nodes the booking
 * (`multiNode`: every part, the label) and that node's launch lines (rank,
 * rendezvous on the node-0 host). Views of one-host bookings pass unchanged.
 */
export async function withMultiNode(client: Client, views: ReservationView[], viewerId: string | null): Promise<ReservationView[]> {
  if (views.length === 0) return views;
  const own = await client.reservation.findMany({ where: { id: { in: views.map((view) => view.id) }, groupId: { not: null } }, select: { id: true, groupId: true } });
  if (own.length === 0) return views;
  const groupOf = new Map(own.map((row) => [row.id, row.groupId as string]));
  const rows = await client.reservation.findMany({ where: { groupId: { in: [...new Set(groupOf.values())] } }, orderBy: { nodeRank: "asc" }, select: partSelect });
  const partsOf = new Map<string, PartRow[]>();
  for (const row of rows) partsOf.set(row.groupId as string, [...(partsOf.get(row.groupId as string) ?? []), row]);
  return views.map((view) => {
    const groupId = groupOf.get(view.id);
    const parts = groupId ? partsOf.get(groupId) : undefined;
    if (!groupId || !parts) return view;
    const mine = parts.find((part) => part.id === view.id) as PartRow;
    const nodeRank = mine.nodeRank ?? 0;
    const shape = shapeOf(parts.map((part) => ({ gpus: part.gpus.map(({ gpu }) => gpu) })));
    const partViews: MultiNodePart[] = parts.map((part) => ({
      id: part.id,
      nodeRank: part.nodeRank ?? 0,
      host: { id: part.host.id, name: part.host.name },
      gpus: part.gpus.map(({ gpu }): ReservedGpu => gpu).sort((a, b) => a.index - b.index),
    }));
    // NCCL's hints for this node come from its own host's fabric, as its agent read it.
    const fabric = ncclHints(parseStoredFabric(mine.host.fabric));
    const node = { bookingId: groupId, nodeRank, nodes: partViews.map((part) => ({ host: part.host.name, gpus: part.gpus.length })), fabric };
    return {
      ...view,
      // On Slurm nodes the view's sbatch/srun lines stay: Slurm runs the job over every node.
      launch: { ...launchSettings(view.gpus, viewerId === mine.userId ? reservationClaimValue(view.id) : null, node), sbatch: view.launch.sbatch, srun: view.launch.srun },
      multiNode: { id: groupId, nodeRank, nodeCount: parts.length, label: multiNodeLabel(shape), partLabel: partLabel(shape, nodeRank), parts: partViews },
    };
  });
}

/** Every part id of the booking that `id` is a part of (itself alone for a one-host booking), in rank order. */
export async function partIdsOf(client: Client, id: string): Promise<string[]> {
  const row = await client.reservation.findUnique({ where: { id }, select: { groupId: true } });
  if (!row?.groupId) return [id];
  const parts = await client.reservation.findMany({ where: { groupId: row.groupId }, orderBy: { nodeRank: "asc" }, select: { id: true } });
  return parts.map((part) => part.id);
}
