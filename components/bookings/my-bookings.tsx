"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { bookingState, type BookingState } from "@/lib/domain/booking-state";
import type { BookingView } from "@/lib/domain/booking-types";
import { useLiveFleet } from "@/components/live/use-live-fleet";
import { useNow } from "@/components/live/use-now";
import { BookingCard } from "@/components/bookings/booking-card";
import { useRefreshOnBookings } from "@/components/bookings/use-refresh-on-bookings";
import { buttonClass } from "@/components/ui/button-styles";

const SECTIONS: { title: string; states: BookingState[]; empty: string }[] = [
  { title: "Active", states: ["active"], empty: "Nothing running on your bookings right now." },
  { title: "Upcoming", states: ["scheduled"], empty: "No bookings ahead." },
  { title: "Past", states: ["expired", "released", "cancelled"], empty: "Nothing yet." },
];

/**
 * My bookings by state. States follow the clock on this page (a booking
 * moves from upcoming to active at its start without a reload); the list
 * itself reloads whenever the live bookings change.
 */
export function MyBookings({ bookings }: { bookings: BookingView[] }) {
  const fleet = useLiveFleet();
  const now = useNow(5_000);
  const router = useRouter();
  useRefreshOnBookings(fleet.bookings, fleet.hasSnapshot);
  const serverNow = now ? now + fleet.clockOffsetMs : 0;
  // A booking across nodes is listed once, by its first part listed, with every part's view for its launch lines.
  const partsOf = new Map<string, BookingView[]>();
  for (const booking of bookings) {
    if (booking.multiNode) partsOf.set(booking.multiNode.id, [...(partsOf.get(booking.multiNode.id) ?? []), booking]);
  }
  const withState = bookings
    .filter((booking) => !booking.multiNode || partsOf.get(booking.multiNode.id)?.[0] === booking)
    .map((booking) => ({
      reservation: booking,
      nodes: booking.multiNode ? [...(partsOf.get(booking.multiNode.id) ?? [])].sort((a, b) => (a.multiNode?.nodeRank ?? 0) - (b.multiNode?.nodeRank ?? 0)) : undefined,
      state: serverNow ? bookingState(booking, serverNow) : booking.state,
    }));

  if (bookings.length === 0) {
    return (
      <div className="rounded-xl border border-dashed border-slate-300 p-8 text-center dark:border-slate-700">
        <p className="mb-4 text-slate-600 dark:text-slate-400">You have no bookings yet.</p>
        <Link href="/reserve" className={buttonClass("primary")}>
          Reserve GPUs
        </Link>
      </div>
    );
  }

  return (
    <div className="space-y-8">
      {SECTIONS.map((section) => {
        const entries = withState.filter((entry) => section.states.includes(entry.state));
        if (section.title === "Past" && entries.length === 0) return null;
        return (
          <section key={section.title} aria-label={section.title} className="space-y-3">
            <h2 className="text-lg font-semibold tracking-tight">
              {section.title} <span className="text-sm font-normal text-slate-500 dark:text-slate-400">({entries.length})</span>
            </h2>
            {entries.length === 0 ? (
              <p className="text-sm text-slate-500 dark:text-slate-400">{section.empty}</p>
            ) : (
              entries.map(({ reservation: booking, nodes, state }, position) => (
                <BookingCard
                  key={booking.id}
                  booking={booking}
                  nodes={nodes}
                  state={state}
                  nowMs={serverNow}
                  bookings={fleet.bookings}
                  onChanged={() => router.refresh()}
                  expanded={state === "active" && position === 0}
                />
              ))
            )}
          </section>
        );
      })}
    </div>
  );
}
