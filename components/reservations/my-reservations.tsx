"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { reservationState, type ReservationState } from "@/lib/domain/reservation-state";
import type { ReservationView } from "@/lib/domain/reservation-types";
import { useLiveFleet } from "@/components/live/use-live-fleet";
import { useNow } from "@/components/live/use-now";
import { ReservationCard } from "@/components/reservations/reservation-card";
import { useRefreshOnBookings } from "@/components/reservations/use-refresh-on-bookings";
import { buttonClass } from "@/components/ui/button-styles";

const SECTIONS: { title: string; states: ReservationState[]; empty: string }[] = [
  { title: "Active", states: ["active"], empty: "Nothing running on your bookings right now." },
  { title: "Upcoming", states: ["scheduled"], empty: "No bookings ahead." },
  { title: "Past", states: ["expired", "released", "cancelled"], empty: "Nothing yet." },
];

/**
 * My bookings by state. States follow the clock on this page (a booking
 * moves from upcoming to active at its start without a reload); the list
 * itself reloads whenever the live bookings change.
 */
export function MyReservations({ reservations }: { reservations: ReservationView[] }) {
  const fleet = useLiveFleet();
  const now = useNow(5_000);
  const router = useRouter();
  useRefreshOnBookings(fleet.bookings, fleet.hasSnapshot);
  const serverNow = now ? now + fleet.clockOffsetMs : 0;
  // A booking across nodes is listed once, by its first part listed, with every part's view for its launch lines.
  const partsOf = new Map<string, ReservationView[]>();
  for (const reservation of reservations) {
    if (reservation.multiNode) partsOf.set(reservation.multiNode.id, [...(partsOf.get(reservation.multiNode.id) ?? []), reservation]);
  }
  const withState = reservations
    .filter((reservation) => !reservation.multiNode || partsOf.get(reservation.multiNode.id)?.[0] === reservation)
    .map((reservation) => ({
      reservation,
      nodes: reservation.multiNode ? [...(partsOf.get(reservation.multiNode.id) ?? [])].sort((a, b) => (a.multiNode?.nodeRank ?? 0) - (b.multiNode?.nodeRank ?? 0)) : undefined,
      state: serverNow ? reservationState(reservation, serverNow) : reservation.state,
    }));

  if (reservations.length === 0) {
    return (
      <div className="rounded-xl border border-dashed border-slate-300 p-8 text-center dark:border-slate-700">
        <p className="mb-4 text-slate-600 dark:text-slate-400">You have no reservations yet.</p>
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
              entries.map(({ reservation, nodes, state }, position) => (
                <ReservationCard
                  key={reservation.id}
                  reservation={reservation}
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
