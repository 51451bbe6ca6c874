import { AppError } from "@/server/core/errors";
import type { Tx } from "@/server/bookings/store/booking-transaction";
import { peakGpusHeld } from "@/server/bookings/store/occupancy";
import type { PolicyValues } from "@/server/bookings/rules/policy";

/**
 * The policy's "GPUs a person may hold at once", checked in the booking's
 * transaction for every booking that adds GPU time: a new booking of one
 * host or across nodes (all its parts together) and an extension (its GPUs
 * over the added time). Refuses with 400 on `field`, the form's field that
 * asked for the GPUs. `excludeId`: the booking being extended, whose own
 * time is not counted twice.
 */
export async function refuseOverPersonCap(
  tx: Tx,
  policy: PolicyValues,
  ask: { userId: string; start: Date; end: Date; gpus: number; field: string; excludeId?: string },
): Promise<void> {
  const held = await peakGpusHeld(tx, ask.userId, ask.start, ask.end, ask.excludeId);
  if (held + ask.gpus <= policy.maxGpusPerUser) return;
  const message = `You would hold ${held + ask.gpus} GPUs at once; the limit is ${policy.maxGpusPerUser} per person`;
  throw new AppError("bad_request", message, { [ask.field]: message });
}
