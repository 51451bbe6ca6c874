import type { Tx } from "@/server/bookings/store/booking-transaction";
import { bookingTeam, type TeamRef } from "@/server/bookings/rules/booking-team";
import { AppError } from "@/server/core/errors";

/**
 * The team a waiting request books for: the one it named, or, when the
 * person is no longer in it, their accounting team (what the grant books
 * for). Its limits are the ones the request waits under.
 */
export async function entryTeam(client: Tx, userId: string, teamId: string | null): Promise<TeamRef | null> {
  try {
    return await bookingTeam(client, userId, teamId ?? undefined);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return bookingTeam(client, userId, undefined);
  }
}
