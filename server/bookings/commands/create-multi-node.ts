import type { MultiNodeRequest } from "@/lib/domain/booking-schema";
import type { MultiNodeBookingView } from "@/lib/domain/booking-types";
import { multiNodeSummary } from "@/lib/domain/multi-node";
import { db } from "@/server/core/db";
import type { Actor } from "@/server/access/actor";
import { book } from "@/server/bookings/commands/book";
import { acrossNodesOrder, type CreateOptions } from "@/server/bookings/commands/booking-order";
import { getBookingView } from "@/server/bookings/views/list-bookings";

/**
 * Books GPUs on several hosts as one booking: any `nodes` hosts with
 * `gpusPerNode` free GPUs each, or the parts named. Each part is an
 * ordinary booking row of its host (so overlap, reconciliation, proofs and
 * limits keep working per part), tied to the others by the node-0 part's
 * id. The one pipeline (book.ts) runs every check for every part before the
 * first row is written, in one transaction that holds every candidate
 * host's lock: all parts or none.
 */
export async function createMultiNodeBooking(actor: Actor, request: MultiNodeRequest, options: CreateOptions = {}): Promise<MultiNodeBookingView> {
  const client = options.client ?? db();
  const now = options.now ?? new Date();
  const booked = await book(actor, await acrossNodesOrder(client, request, now), options);
  const views = [];
  for (const id of booked.partIds) views.push(await getBookingView(client, id, now.getTime(), actor.id));
  return { ...multiNodeSummary(views), warnings: booked.warnings, ...(booked.explanation ? { explanation: booked.explanation } : {}) };
}
