import { isGpuFree } from "@/lib/domain/gpu-availability";
import { eventChannel } from "@/server/core/event-bus";
import type { TickConsumer } from "@/server/tick/tick-view";

/** "Units became free this tick" (work without a booking ended, a host came back): the waitlist looks again at once. */
const unitsFreed = eventChannel<void>("unitsFreed");

export const onUnitsFreed = (listener: () => void): (() => void) => unitsFreed.on(listener);

/**
 * The tick's word to the waitlist: a unit whose reconciliation changed to
 * free this tick. Bookings that end are told by the booking feed, limits by
 * their services; what frees a unit without either (a process that ended on
 * a unit nobody booked) is only seen here.
 */
export function unitsFreedConsumer(): TickConsumer {
  return {
    name: "waitlist wake",
    runs: "leader",
    consume(view) {
      for (const uuid in view.changed) {
        if (isGpuFree(view.changed[uuid]!.state)) {
          unitsFreed.emit();
          return;
        }
      }
    },
  };
}
