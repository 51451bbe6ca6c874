import { type MultiNodeShapeRequest } from "@/lib/domain/booking-schema";
import { storedMultiNodeSchema, type WaitingMultiNode, waitingMultiNodeLabel } from "@/lib/domain/waitlist-schema";
import { AppError } from "@/server/core/errors";

/**
 * What a waiting request across nodes asks for, from its stored JSON
 * (WaitlistEntry.multiNode); null for a request of one host. The stored
 * text is checked again: one that no longer reads is refused (an
 * AppError), so the grant passes it over rather than booking half.
 */
export function readWaitingMultiNode(stored: string | null): MultiNodeShapeRequest | null {
  if (stored === null) return null;
  let json: unknown = null;
  try {
    json = JSON.parse(stored);
  } catch {
    // Said below with the schema's refusal.
  }
  const parsed = storedMultiNodeSchema.safeParse(json);
  if (!parsed.success || (!parsed.data.parts && (!parsed.data.nodes || !parsed.data.gpusPerNode))) {
    throw new AppError("bad_request", "This waiting request across nodes no longer reads; leave it and ask again");
  }
  return parsed.data;
}

/** The queue's view of it: the shape and its one phrase ("2 × 8 H100"). */
export function waitingMultiNodeView(stored: string | null): WaitingMultiNode | null {
  try {
    const shape = readWaitingMultiNode(stored);
    return shape && { ...shape, label: waitingMultiNodeLabel(shape) };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { label: error.message };
  }
}
