"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import type { LiveBooking } from "@/lib/live/live";

/**
 * Reloads the server component's data whenever the live bookings change
 * (someone booked, released, a booking started or ended), so that a page
 * that lists bookings from the database stays true without a reload.
 */
export function useRefreshOnBookings(bookings: LiveBooking[], hasSnapshot: boolean): void {
  const router = useRouter();
  const seen = useRef<LiveBooking[] | null>(null);
  useEffect(() => {
    if (!hasSnapshot) return;
    // Every change after the first list reloads. The first list comes with the live snapshot, a
    // moment after the page was rendered: a booking made or ended in between (a waiting request
    // granted while the page connected) is already in it, so it reloads once too.
    if (seen.current !== bookings) router.refresh();
    seen.current = bookings;
  }, [bookings, hasSnapshot, router]);
}
