import type { ReservationView } from "@/lib/domain/reservation-types";
import type { Actor } from "@/server/access/actor";
import { eventChannel } from "@/server/core/event-bus";

/** "Bookings changed": the services announce it after each commit; the live feed and the waitlist listen. */
const bookingsChanged = eventChannel<void>("bookingsChanged");

export const onBookingsChanged = (listener: () => void): (() => void) => bookingsChanged.on(listener);
export const announceBookingsChanged = (): void => bookingsChanged.emit();

/** A booking changed or ended by someone: its person hears of it where that someone was not them. */
export interface BookingChange {
  actor: Actor;
  booking: ReservationView;
  what: "extended" | "shortened" | "released" | "cancelled";
}

/**
 * "This booking was changed by …": the booking services announce it after
 * the commit; notifications listen (server/notifications/booking-notices.ts,
 * started with the server), so bookings never reach into notifications.
 */
const bookingChanged = eventChannel<BookingChange>("bookingChanged");

export const onBookingChange = (listener: (change: BookingChange) => void): (() => void) => bookingChanged.on(listener);
export const announceBookingChange = (change: BookingChange): void => bookingChanged.emit(change);
