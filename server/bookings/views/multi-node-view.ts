import type { Prisma, PrismaClient } from "@prisma/client";
import { ncclHints, parseStoredFabric } from "@/lib/domain/fabric";
import { launchSettings } from "@/lib/domain/launch-settings";
import { multiNodeLabel, partLabel, shapeOf } from "@/lib/domain/multi-node";
import type { MultiNodePart, BookingView, ReservedGpu } from "@/lib/domain/booking-types";
import { bookingClaimValue } from "@/server/bookings/rules/booking-proof";
import { readMultiNodeParts, type MultiNodePartRow } from "@/server/bookings/store/booking-parts";

type Client = PrismaClient | Prisma.TransactionClient;

/**
 * Adds to each view that is a part of a booking across nodes the booking
 * (`multiNode`: every part, the label) and that node's launch lines (rank,
 * rendezvous on the node-0 host). Views of one-host bookings pass unchanged.
 */
export async function withMultiNode(client: Client, views: BookingView[], viewerId: string | null): Promise<BookingView[]> {
  if (views.length === 0) return views;
  const { groupOf, parts: rows } = await readMultiNodeParts(client, views.map((view) => view.id));
  if (groupOf.size === 0) return views;
  const partsOf = new Map<string, MultiNodePartRow[]>();
  for (const row of rows) partsOf.set(row.groupId as string, [...(partsOf.get(row.groupId as string) ?? []), row]);
  return views.map((view) => {
    const groupId = groupOf.get(view.id);
    const parts = groupId ? partsOf.get(groupId) : undefined;
    if (!groupId || !parts) return view;
    const mine = parts.find((part) => part.id === view.id) as MultiNodePartRow;
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
      launch: { ...launchSettings(view.gpus, viewerId === mine.userId ? bookingClaimValue(view.id) : null, node), sbatch: view.launch.sbatch, srun: view.launch.srun },
      multiNode: { id: groupId, nodeRank, nodeCount: parts.length, label: multiNodeLabel(shape), partLabel: partLabel(shape, nodeRank), parts: partViews },
    };
  });
}
