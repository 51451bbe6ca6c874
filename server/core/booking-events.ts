import { processEvent } from "@/server/core/process-events";

/** "Bookings changed": the services announce it after each commit; the live feed and the waitlist listen. */
const bookingsChanged = processEvent<void>("__gpudeskBookingListeners", "booking changes");

export const onBookingsChanged = (listener: () => void): (() => void) => bookingsChanged.on(listener);
export const announceBookingsChanged = (): void => bookingsChanged.emit();
