import { slurmReservationName } from "@/lib/domain/slurm";
import { writeAudit } from "@/server/access/audit-log";
import { BookingBackendRefusal, type BookedBooking } from "@/server/bookings/backends/booking-backend";
import { readCurrentBookings } from "@/server/bookings/store/booked-booking";
import { recordSlurmState } from "@/server/bookings/store/slurm-state";
import { db } from "@/server/core/db";
import { log } from "@/server/core/log";
import { SlurmError } from "@/server/slurm/slurm-client";
import type { SlurmConnection } from "@/server/slurm/slurm-connection";
import { reservationSpec, slurmRefusal } from "@/server/bookings/slurm/slurm-backend";
import { announceSlurmReservationMissing } from "@/server/bookings/slurm/slurm-events";
import { refreshSlurmCalendar } from "@/server/hosts/slurm-calendar-hosts";

/** What one pass did, for tests and the benchmark. */
export interface ReconcileResult {
  bookings: number;
  remade: string[];
  missing: string[];
  orphansDeleted: string[];
}

const PREFIX = "gpudesk-";

/**
 * One pass of the Slurm reconciler (a leader job, every 30 s and at start):
 * one list call each for nodes, jobs and reservations, then every current
 * booking on Slurm nodes compared with them. A booking whose reservation is
 * gone gets it again; where Slurm refuses (a job took the GPUs meanwhile) the
 * booking says so (`missing`, the reason beside it). A reservation of
 * gpudesk's with no current booking is deleted. Every repair is audited; a
 * booking that turns "missing" is announced once (its booker is told), not
 * again on each pass while it stays so. The same lists lay Slurm's jobs and
 * foreign reservations on the calendar (`refreshSlurmCalendar`).
 */
export async function reconcileSlurm(connection: SlurmConnection, now: () => number = Date.now): Promise<ReconcileResult> {
  await connection.refresh();
  await refreshSlurmCalendar(connection, now());
  const hosts = await db().host.findMany({ select: { id: true, name: true, slurmNode: true } });
  const nodeOfHost = new Map(hosts.map((host) => [host.id, connection.nodeOf(host)]));
  const slurmHostIds = hosts.filter((host) => nodeOfHost.get(host.id) !== null).map((host) => host.id);
  const result: ReconcileResult = { bookings: 0, remade: [], missing: [], orphansDeleted: [] };
  const bookings = slurmHostIds.length > 0 ? await readCurrentBookings(db(), slurmHostIds, new Date(now())) : [];
  result.bookings = bookings.length;
  const held = new Set(connection.reservations.map((reservation) => reservation.name));
  const wanted = new Set<string>();

  for (const booking of bookings) {
    const name = slurmReservationName(booking.id);
    wanted.add(name);
    if (held.has(name)) {
      if (booking.slurmState !== "held") await db().$transaction((tx) => recordSlurmState(tx, booking.id, "held", null));
      continue;
    }
    const nodes = booking.parts.map((part) => nodeOfHost.get(part.hostId) ?? null);
    if (nodes.some((node) => node === null)) continue;
    await remake(connection, booking, nodes as string[], now(), result);
  }

  for (const reservation of connection.reservations) {
    if (!reservation.name.startsWith(PREFIX) || wanted.has(reservation.name)) continue;
    // Ended already, a job still running under it: Slurm drops it with that job.
    if (reservation.endsAt !== null && reservation.endsAt <= now() + 1000) continue;
    await connection.client.deleteReservation(reservation.name);
    result.orphansDeleted.push(reservation.name);
    await db().$transaction((tx) =>
      writeAudit(tx, { actorId: null, action: "reservation.slurm_repair", entityType: "reservation", entityId: reservation.name.slice(PREFIX.length), after: { slurm: "orphan deleted", reservation: reservation.name } }),
    );
  }
  if (result.remade.length + result.missing.length + result.orphansDeleted.length > 0) {
    log.info(`slurm reconciler: ${result.remade.length} reservations made again, ${result.missing.length} missing, ${result.orphansDeleted.length} orphans deleted`);
  }
  return result;
}

async function remake(connection: SlurmConnection, booking: BookedBooking & { slurmState: string | null; slurmMessage: string | null }, nodes: string[], nowMs: number, result: ReconcileResult): Promise<void> {
  const name = slurmReservationName(booking.id);
  let message: string | null = null;
  try {
    await connection.client.createReservation(reservationSpec(booking, nodes, nowMs));
  } catch (error) {
    if (error instanceof SlurmError) message = (await slurmRefusal(connection, error, nodes)).message.replace(/\. Nothing was booked$/, "");
    else if (error instanceof BookingBackendRefusal) message = error.message;
    else throw error;
  }
  const state = message === null ? "held" : "missing";
  const told = message === null ? null : `Slurm does not hold this booking's reservation any more: ${message}`;
  // Still missing for the same reason: nothing new to record, audit or tell.
  if (state === "missing" && booking.slurmState === "missing" && booking.slurmMessage === told) return;
  (state === "held" ? result.remade : result.missing).push(name);
  await db().$transaction(async (tx) => {
    await recordSlurmState(tx, booking.id, state, told);
    await writeAudit(tx, {
      actorId: null,
      action: "reservation.slurm_repair",
      entityType: "reservation",
      entityId: booking.id,
      after: { slurm: state === "held" ? "reservation made again" : "reservation missing", reservation: name, ...(message ? { reason: message } : {}) },
    });
  });
  if (state === "missing" && booking.slurmState !== "missing") {
    announceSlurmReservationMissing({
      bookingId: booking.id,
      userId: booking.bookedById,
      purpose: booking.purpose,
      hostNames: booking.parts.map((part) => part.hostName),
      reservation: name,
      reason: message ?? "",
      at: new Date(nowMs),
    });
  }
}
