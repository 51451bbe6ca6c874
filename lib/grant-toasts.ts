/** How long after a grant's toast appeared the live bookings must hold its booking (the grant's delta may trail the notice). */
export const GRANT_SETTLE_MS = 5_000;

export interface GrantToastRef {
  reservationId: string | null;
  /** Browser clock when the toast appeared. */
  shownAt: number;
}

/**
 * The "GPUs ready" toasts whose booking is still held: one goes once the
 * live bookings (active and upcoming) lack its booking, after having had
 * it, or in an update that came well after the toast (released before it
 * was ever seen). A toast without a booking id stays until dismissed.
 */
export function grantsStillHeld<T extends GrantToastRef>(toasts: readonly T[], live: { bookingIds: ReadonlySet<string>; updatedAt: number | null }, seen: ReadonlySet<string>): T[] {
  return toasts.filter((toast) => {
    if (!toast.reservationId || live.bookingIds.has(toast.reservationId)) return true;
    if (seen.has(toast.reservationId)) return false;
    return live.updatedAt === null || live.updatedAt < toast.shownAt + GRANT_SETTLE_MS;
  });
}
