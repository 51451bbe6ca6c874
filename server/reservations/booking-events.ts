/**
 * "Bookings changed": the services announce it after each commit, and the
 * live feed listens. The listeners live on globalThis because Next's route
 * bundles load their own copy of this module, while the feed runs in the
 * custom server's.
 */
type Listener = () => void;

const holder = globalThis as unknown as { __gpudeskBookingListeners?: Set<Listener> };

function listeners(): Set<Listener> {
  holder.__gpudeskBookingListeners ??= new Set();
  return holder.__gpudeskBookingListeners;
}

export function onBookingsChanged(listener: Listener): () => void {
  listeners().add(listener);
  return () => {
    listeners().delete(listener);
  };
}

export function announceBookingsChanged(): void {
  for (const listener of listeners()) listener();
}
