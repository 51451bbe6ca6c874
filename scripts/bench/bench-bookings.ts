import type { LiveBooking } from "@/lib/live/live";
import type { simulatedFleet } from "@/host/collector/simulated/simulated-source";

/**
 * A few bookings over a simulated fleet (two GPUs on every fourth host's
 * worth of hosts, from an hour before `startMs` to an hour after the run),
 * so that the tick's rules meet bookers, idle bookings and conflicts.
 */
export function benchBookings(specs: ReturnType<typeof simulatedFleet>, startMs: number, seconds: number): LiveBooking[] {
  return specs.slice(0, Math.ceil(specs.length / 4)).map((spec, i) => ({
    reservationId: `booking-${i}`,
    hostId: `host-${i}`,
    hostName: spec.hostName,
    gpus: spec.gpus.slice(0, 2).map((gpu) => ({ uuid: gpu.uuid, index: gpu.index })),
    bookedBy: { id: `person-${i}`, username: `person${i}`, name: `Person ${i}` },
    startsAt: new Date(startMs - 3600_000).toISOString(),
    endsAt: new Date(startMs + 3600_000 + seconds * 1000).toISOString(),
    purpose: "bench",
  }));
}
