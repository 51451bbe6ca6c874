import { purposeWithPart } from "@/lib/domain/multi-node";
import Link from "next/link";
import type { LiveBooking } from "@/lib/live/live";
import { formatWhen } from "@/lib/format/local-time";
import { personName } from "@/lib/format/person-name";

/** A unit's running and coming bookings on its page: who, when, what for. */
export function GpuBookings({ bookings, nowMs, bookHref }: { bookings: LiveBooking[]; nowMs: number; bookHref: string }) {
  const people = bookings.map((booking) => booking.bookedBy);
  return (
    <div className="space-y-2 text-sm">
      {bookings.length === 0 ? (
        <p className="text-slate-600 dark:text-slate-400">No booking now or to come.</p>
      ) : (
        <ul className="space-y-1" aria-label="Bookings">
          {bookings.map((booking) => {
            const running = Date.parse(booking.startsAt) <= nowMs;
            return (
              <li key={booking.reservationId} data-testid="gpu-page-booking">
                <span className="font-medium">{personName(booking.bookedBy, people)}</span>
                {booking.team ? <span className="text-slate-600 dark:text-slate-400"> for {booking.team}</span> : null}{" "}
                {running ? `until ${formatWhen(booking.endsAt, nowMs)}` : `${formatWhen(booking.startsAt, nowMs)} – ${formatWhen(booking.endsAt, nowMs)}`}
                <span className="text-slate-600 dark:text-slate-400"> · {purposeWithPart(booking.purpose, booking.multiNode)}</span>
              </li>
            );
          })}
        </ul>
      )}
      <Link href={bookHref} className="inline-block text-sky-700 hover:underline dark:text-sky-400">
        Book it
      </Link>
    </div>
  );
}
