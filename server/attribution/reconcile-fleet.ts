import type { GpuReconciliation } from "@/lib/domain/attribution";
import type { LiveBooking, LiveGpu, LiveHost } from "@/lib/live/live";
import { attributeProcesses } from "@/server/attribution/attribute-processes";
import { bookingTakesUnit, deriveGpuState, siliconOf } from "@/lib/domain/gpu-availability";
import { sameJson } from "@/lib/live/same-json";
import type { PersonDirectory } from "@/server/attribution/user-directory";
import { EMPTY_SLURM_CALENDAR as NO_SLURM, slurmHoldOf, type SlurmCalendar, type SlurmHoldNow } from "@/lib/domain/slurm";

/**
 * What Slurm holds on each unit at `nowMs`, by GPU UUID: a block of its own
 * (a job outside gpudesk's reservations, a reservation gpudesk did not make),
 * else the booker's job under the booking that holds the unit now (every unit
 * of that booking's part on the job's host: Slurm, not gpudesk, picked which
 * GPUs the job got).
 */
export function slurmHoldsByGpu(calendar: SlurmCalendar, nowMs: number, active: ReadonlyMap<string, LiveBooking>, gpus: readonly LiveGpu[]): Map<string, SlurmHoldNow> {
  const holds = new Map<string, SlurmHoldNow>();
  if (calendar.blocks.length === 0 && calendar.runs.length === 0) return holds;
  for (const block of calendar.blocks) {
    if (Date.parse(block.startsAt) > nowMs || Date.parse(block.endsAt) <= nowMs) continue;
    for (const gpu of block.gpus) if (!holds.has(gpu.uuid)) holds.set(gpu.uuid, slurmHoldOf(block));
  }
  for (const gpu of gpus) {
    const booking = active.get(gpu.uuid);
    if (!booking) continue;
    const run = calendar.runs.find((entry) => entry.bookingId === (booking.multiNode?.id ?? booking.reservationId) && entry.hostId === gpu.hostId);
    if (run) holds.set(gpu.uuid, { kind: "booked-job", id: String(run.jobId), user: run.user, until: run.until });
  }
  return holds;
}

/** What the reconciler reads of the live fleet: hosts and the latest reading of each GPU. */
export interface FleetView {
  hosts: readonly LiveHost[];
  gpus: readonly LiveGpu[];
}

/**
 * The booking holding each unit of the fleet at `nowMs` (bookings are
 * [startsAt, endsAt)): a booking of the unit itself, else one of the silicon
 * it shares (`bookingTakesUnit`: its GPU booked whole before a split, or a
 * slice booked before its GPU was whole again), so that such a unit is not
 * free on any surface while the booking transaction refuses it.
 */
export function activeBookingsByGpu(bookings: readonly LiveBooking[], nowMs: number, units: readonly Parameters<typeof siliconOf>[0][]): Map<string, LiveBooking> {
  // Each active booking under the UUIDs that can share its silicon (its units' and their GPUs'); the rule then decides.
  const candidates = new Map<string, LiveBooking[]>();
  for (const booking of bookings) {
    if (Date.parse(booking.startsAt) > nowMs || Date.parse(booking.endsAt) <= nowMs) continue;
    for (const gpu of booking.gpus) {
      for (const key of gpu.parentUuid ? [gpu.uuid, gpu.parentUuid] : [gpu.uuid]) candidates.set(key, [...(candidates.get(key) ?? []), booking]);
    }
  }
  const byGpu = new Map<string, LiveBooking>();
  for (const gpu of units) {
    const unit = siliconOf(gpu);
    const near = [...(candidates.get(unit.uuid) ?? []), ...(unit.parentUuid ? (candidates.get(unit.parentUuid) ?? []) : [])];
    const own = near.find((booking) => booking.gpus.some((entry) => entry.uuid === unit.uuid));
    const shared = own ?? near.find((booking) => bookingTakesUnit(booking, unit));
    if (shared) byGpu.set(gpu.uuid, shared);
  }
  return byGpu;
}

/**
 * Every GPU's state and who runs on it, for one instant. Processes are
 * attributed per host, because a job's processes (and so its evidence) may
 * be spread over several GPUs of the host.
 */
export function reconcileFleet(
  view: FleetView,
  bookings: readonly LiveBooking[],
  directory: PersonDirectory,
  nowMs: number,
  /** `activeBookingsByGpu(bookings, nowMs)`, when the caller has it already (the tick). */
  active: ReadonlyMap<string, LiveBooking> = activeBookingsByGpu(bookings, nowMs, view.gpus),
  /** Slurm's jobs and reservations on the calendar (none without Slurm). */
  slurm: SlurmCalendar = NO_SLURM,
): Record<string, GpuReconciliation> {
  const slurmHolds = slurmHoldsByGpu(slurm, nowMs, active, view.gpus);
  const bookingsById = new Map(bookings.map((booking) => [booking.reservationId, booking]));
  const online = new Map(view.hosts.map((host) => [host.id, host.online]));
  const gpusByHost = new Map<string, LiveGpu[]>();
  for (const gpu of view.gpus) {
    const list = gpusByHost.get(gpu.hostId);
    if (list) list.push(gpu);
    else gpusByHost.set(gpu.hostId, [gpu]);
  }

  const result: Record<string, GpuReconciliation> = {};
  for (const [hostId, gpus] of gpusByHost) {
    const attributions = attributeProcesses(
      gpus.flatMap((gpu) => gpu.processes),
      { bookings: bookingsById, directory },
    );
    for (const gpu of gpus) {
      result[gpu.uuid] = deriveGpuState({
        gpu,
        online: online.get(hostId) ?? false,
        booking: active.get(gpu.uuid) ?? null,
        attributions,
        slurm: slurmHolds.get(gpu.uuid) ?? null,
      });
    }
  }
  return result;
}

/**
 * Keeps the last reconciliation and tells what changed since the previous
 * run, so that the live deltas carry only GPUs whose state or attribution
 * moved.
 */
export class Reconciler {
  private states: Record<string, GpuReconciliation> = {};

  constructor(
    private readonly bookings: () => readonly LiveBooking[],
    private readonly directory: PersonDirectory,
    private readonly slurm: () => SlurmCalendar = () => NO_SLURM,
  ) {}

  /** Reconciles `view` at `nowMs`; returns the GPUs whose reconciliation changed (all of them on the first run). */
  run(view: FleetView, nowMs: number, active?: ReadonlyMap<string, LiveBooking>): Record<string, GpuReconciliation> {
    const next = reconcileFleet(view, this.bookings(), this.directory, nowMs, active, this.slurm());
    const changed: Record<string, GpuReconciliation> = {};
    for (const uuid in next) {
      const previous = this.states[uuid];
      if (!sameJson(previous, next[uuid])) changed[uuid] = next[uuid]!;
      // The one held since the GPU's state last changed: a state kept for a second lands in
      // the old generation, and one built anew every tick was the most of its garbage (issue 42).
      else next[uuid] = previous!;
    }
    this.states = next;
    return changed;
  }

  /** The last reconciliation of every GPU (what a new viewer and the API get). */
  current(): Record<string, GpuReconciliation> {
    return this.states;
  }
}
