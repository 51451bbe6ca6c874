"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import type { LiveBooking } from "@/lib/live";

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
    // The first list is what the page was rendered with, give or take a moment.
    if (seen.current !== null && seen.current !== bookings) router.refresh();
    seen.current = bookings;
  }, [bookings, hasSnapshot, router]);
}
