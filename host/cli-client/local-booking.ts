import type { BookingView } from "@/lib/domain/booking-types";

/** Whether a host name in gpudesk names this machine: equal, or equal up to the domain ("node-a" vs "node-a.lab"). */
export function sameHost(gpudeskName: string, hostname: string): boolean {
  const short = (name: string) => name.toLowerCase().split(".")[0];
  return gpudeskName.toLowerCase() === hostname.toLowerCase() || short(gpudeskName) === short(hostname);
}

/**
 * The booking `gpudesk env` means without an id: the caller's active one on
 * this machine; null when there is none, the list of ids when it is ambiguous.
 */
export function pickLocalBooking(bookings: BookingView[], hostname: string): BookingView | null | string[] {
  const local = bookings.filter((booking) => booking.state === "active" && sameHost(booking.host.name, hostname));
  if (local.length === 0) return null;
  if (local.length === 1) return local[0];
  return local.map((booking) => booking.id);
}

/**
 * The gpudesk host that is this machine: the one whose agent reports this
 * hostname (any case, with or without the domain); an exact match wins over
 * a short-name match. Null on a machine that is no GPU host of the server.
 */
export function localGpuHost(hostNames: readonly string[], hostname: string): string | null {
  const exact = hostNames.find((name) => name.toLowerCase() === hostname.toLowerCase());
  return exact ?? hostNames.find((name) => sameHost(name, hostname)) ?? null;
}
