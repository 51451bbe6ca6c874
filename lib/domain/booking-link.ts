/**
 * Where a booking is shown: its card on "My bookings", whose element id
 * is `bookingAnchor(id)` (a booking across nodes by its booking id, the
 * node-0 part's). Alerts, notices, mail and webhooks link there.
 */
export function bookingAnchor(bookingId: string): string {
  return `booking-${bookingId}`;
}

/** "/reservations#booking-<id>": the path of a booking's card (a mail or webhook puts the server's address before it). */
export function bookingPath(bookingId: string): string {
  return `/reservations#${bookingAnchor(bookingId)}`;
}
