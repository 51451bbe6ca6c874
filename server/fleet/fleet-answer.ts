import { displayGpusFromFleet, type DisplayViewOptions } from "@/lib/live/display-from-fleet";
import type { DisplayFleetAnswer, FleetAnswer, GpuBookingNow } from "@/lib/live/fleet-api";
import { isPartitioned, summarizeAvailability } from "@/lib/domain/gpu-availability";
import { personName } from "@/lib/format/person-name";
import { activeBookingsByGpu, reconcileFleet } from "@/server/attribution/reconcile-fleet";
import { UserDirectory } from "@/server/attribution/user-directory";
import type { FleetState } from "@/server/fleet/fleet-state";
import { listLiveBookings } from "@/server/bookings/views/bookings-query";

/**
 * The fleet as `GET /api/v1/fleet` answers it. The states are reconciled
 * here from the bookings in the database, not taken from the live
 * reconciler, so that a booking made a moment ago already shows (the
 * reconciler catches up on its next tick) and so that the answer is whole
 * where the server runs without the alerts runtime.
 */
export async function readFleetAnswer(fleet: FleetState, now: Date): Promise<FleetAnswer> {
  const directory = new UserDirectory();
  const [bookings] = await Promise.all([listLiveBookings(now), directory.refresh()]);
  const snapshot = fleet.snapshot();
  const gpuStates = reconcileFleet(snapshot, bookings, directory, now.getTime());

  const active = activeBookingsByGpu(bookings, now.getTime(), snapshot.gpus);
  const bookers = [...active.values()].map((booking) => booking.bookedBy);
  const gpuBookings: Record<string, GpuBookingNow> = {};
  for (const [uuid, booking] of active) {
    gpuBookings[uuid] = {
      reservationId: booking.reservationId,
      bookedBy: booking.bookedBy,
      bookedByName: personName(booking.bookedBy, bookers),
      startsAt: booking.startsAt,
      until: booking.endsAt,
      purpose: booking.purpose,
    };
  }

  const availability = summarizeAvailability(
    snapshot.gpus.filter((gpu) => gpuStates[gpu.uuid] && !isPartitioned(gpu)).map((gpu) => ({ host: gpu.hostName, state: gpuStates[gpu.uuid].state })),
  );
  return { ...snapshot, bookings, gpuStates, gpuBookings, availability };
}

/**
 * The same fleet, reduced to the display scope: what a display token gets
 * from `GET /api/v1/fleet`; with the display's `namesUnbookedRunner`, the
 * display name of who runs on a GPU without a booking too.
 */
export async function readDisplayFleetAnswer(fleet: FleetState, now: Date, view: DisplayViewOptions = {}): Promise<DisplayFleetAnswer> {
  const answer = await readFleetAnswer(fleet, now);
  const online = new Set(answer.hosts.filter((host) => host.online).map((host) => host.id));
  const gpus = displayGpusFromFleet(Object.fromEntries(answer.gpus.map((gpu) => [gpu.uuid, gpu])), online, answer.bookings, answer.gpuStates, now.getTime(), view);
  return {
    serverTime: answer.serverTime,
    simulated: answer.simulated,
    hosts: answer.hosts.map(({ id, name, online: up, lastSeenAt, gpuUuids }) => ({ id, name, online: up, lastSeenAt, gpuUuids })),
    gpus: answer.gpus.flatMap((gpu) => (gpus[gpu.uuid] ? [gpus[gpu.uuid]!] : [])),
    availability: answer.availability,
  };
}
