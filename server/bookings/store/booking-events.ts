import type { BookingChangeRecord } from "@/server/bookings/backends/booking-backend";
import { eventChannel } from "@/server/core/event-bus";

/**
 * What the bookings' one channel carries. Every change of a booking's life
 * (created, changed, ended, kept, a part replaced, released idle, warned
 * idle) is announced once, by its transaction after the commit
 * (booking-transaction.ts), as the command recorded it: the only `booking`
 * announcements. What bookings are read or judged by can change too without
 * a booking changing (the policy, a team's limits or members, the demo's
 * end), and another instance's changes reach this one: those tell the
 * followers to read again, and name no booking.
 */
export type BookingsEvent =
  | { kind: "booking"; change: BookingChangeRecord }
  /** What every booking is read or judged by changed (unnamed: something of the kind). */
  | { kind: "rules"; what?: "policy" | "limits" | "teams" | "demo-choice" }
  /** A change announced on another instance (server/cluster/): the followers of one booking's change heard it there. */
  | { kind: "elsewhere" };

/**
 * The one subscription point of a booking's followers: the live feed, the
 * waitlist, reminders, notifications, the cluster's relay (booking backends,
 * which may refuse a change, hook in before the commit instead:
 * server/bookings/backends/booking-backend.ts). Followers hear after the
 * commit, on the instance where the change was made; bookings never import them.
 */
const bookingsChanged = eventChannel<BookingsEvent>("bookingsChanged");

export const onBookingsChanged = (listener: (event: BookingsEvent) => void): (() => void) => bookingsChanged.on(listener);

/** A committed change of one booking: the booking transaction's announcement, once per recorded change (nothing else announces one). */
export const announceBookingChange = (change: BookingChangeRecord): void => bookingsChanged.emit({ kind: "booking", change });

/** What bookings are read or judged by changed, or another instance's did: every follower reads again. */
export const announceBookingsChanged = (event: Exclude<BookingsEvent, { kind: "booking" }> = { kind: "rules" }): void => bookingsChanged.emit(event);
