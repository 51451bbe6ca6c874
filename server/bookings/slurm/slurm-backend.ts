import type { Prisma } from "@prisma/client";
import { slurmReservationName } from "@/lib/domain/slurm";
import { BookingBackendRefusal, type BookedBooking, type BookingBackend, type BookingChange } from "@/server/bookings/backends/booking-backend";
import { recordSlurmState } from "@/server/bookings/store/slurm-state";
import { AppError } from "@/server/core/errors";
import { log } from "@/server/core/log";
import { NODES_BUSY, SlurmError, SlurmUnreachable, type ReservationSpec } from "@/server/slurm/slurm-client";
import type { SlurmConnection } from "@/server/slurm/slurm-connection";
import type { SlurmJob } from "@/server/slurm/slurm-model";

/**
 * Slurm underneath: every booking on Slurm nodes is a Slurm reservation,
 * made inside the booking's commit (server/bookings/backends/booking-backend.ts).
 * Users = the booker's Unix login, the booking's node(s), its GPU count per
 * node, its times, one name per booking (`gpudesk-<id>`): a booking commits
 * only once Slurm holds its reservation; Slurm's "no" is a 409 naming the
 * jobs in the way, and nothing is left in either system.
 */
export function slurmBookingBackend(connection: SlurmConnection, now: () => number = Date.now): BookingBackend {
  return {
    name: "slurm",
    async beforeCommit(change, tx) {
      // A keep or an idle warning moves no time and no node: Slurm's reservation stays as it is.
      if (change.kind === "kept" || change.kind === "idle-warned") return;
      const nodes = await slurmNodesOf(change.booking, tx, connection);
      if (nodes.length === 0) return;
      const name = slurmReservationName(change.booking.id);
      try {
        switch (change.kind) {
          case "created":
            await hold(connection, reservationSpec(change.booking, nodes, now()), tx);
            return;
          case "changed":
            await move(connection, change, nodes, now(), tx);
            return;
          case "part-replaced":
            // A core-based reservation's nodes cannot be updated: the booking's is made again over its new nodes.
            await connection.client.deleteReservation(name);
            await hold(connection, reservationSpec(change.booking, nodes, now()), tx);
            return;
          case "ended":
            await connection.client.deleteReservation(name);
            return;
        }
      } catch (error) {
        connection.markDown(error);
        if (error instanceof SlurmUnreachable) {
          // An end is not held up by Slurm being away: the reconciler deletes the reservation once Slurm answers.
          if (change.kind === "ended") {
            log.warn(`Slurm reservation ${name} of a ${change.how} booking stays until Slurm answers: ${error.message}`);
            return;
          }
          throw new AppError(
            "slurm_unavailable",
            `${error.message}. Bookings on its nodes (${nodes.join(", ")}) are refused until it answers; nothing was booked`,
          );
        }
        throw error;
      }
    },
  };
}

/** The Slurm node of each part's host, in part order; [] when the booking is on no Slurm node. */
async function slurmNodesOf(booking: BookedBooking, tx: Prisma.TransactionClient, connection: SlurmConnection): Promise<string[]> {
  const hosts = await tx.host.findMany({ where: { id: { in: booking.parts.map((part) => part.hostId) } }, select: { id: true, name: true, slurmNode: true } });
  const byId = new Map(hosts.map((host) => [host.id, host]));
  const nodes = booking.parts.map((part) => connection.nodeOf(byId.get(part.hostId) ?? { name: part.hostName, slurmNode: null }));
  if (nodes.every((node) => node === null)) return [];
  if (nodes.some((node) => node === null)) {
    throw new BookingBackendRefusal("slurm", "A booking cannot span Slurm nodes and hosts outside Slurm: book the Slurm nodes on their own", "slurm_refused");
  }
  return nodes as string[];
}

export function reservationSpec(booking: BookedBooking, nodes: string[], nowMs: number): ReservationSpec {
  if (!booking.bookedByUnixLogin) {
    throw new BookingBackendRefusal(
      "slurm",
      `${booking.bookedByUsername} has no Unix login in gpudesk: a booking on a Slurm node (${nodes.join(", ")}) is a Slurm reservation for the booker's Unix user. An admin sets it under Admin → People`,
      "slurm_no_login",
    );
  }
  const slices = booking.parts.flatMap((part) => part.units).filter((unit) => unit.migProfile !== null);
  if (slices.length > 0) {
    throw new BookingBackendRefusal("slurm", "MIG slices cannot be booked on Slurm nodes here: the cluster does not type them as GRES (book whole GPUs)", "slurm_refused");
  }
  return {
    name: slurmReservationName(booking.id),
    users: [booking.bookedByUnixLogin],
    nodes,
    gpusPerNode: Math.max(...booking.parts.map((part) => part.units.length)),
    // Slurm starts a reservation no earlier than now; a booking made "now" started a moment ago.
    startsAt: new Date(Math.max(booking.startsAt.getTime(), nowMs)),
    endsAt: booking.endsAt,
    comment: `gpudesk booking ${booking.id} of ${booking.bookedByUsername}`,
  };
}

/** Makes the reservation; a retry finds its own (the same name) and keeps it. */
async function hold(connection: SlurmConnection, spec: ReservationSpec, tx: Prisma.TransactionClient): Promise<void> {
  try {
    await connection.client.createReservation(spec);
  } catch (error) {
    if (!(error instanceof SlurmError)) throw error;
    const existing = (await connection.client.listReservations()).find((reservation) => reservation.name === spec.name);
    if (existing) await connection.client.updateReservation(spec.name, { startsAt: spec.startsAt, endsAt: spec.endsAt });
    else throw await slurmRefusal(connection, error, spec.nodes);
  }
  await recordSlurmState(tx, spec.name.slice("gpudesk-".length), "held", null);
}

/** Extends or shortens the reservation; one that went missing is made again. */
async function move(connection: SlurmConnection, change: Extract<BookingChange, { kind: "changed" }>, nodes: string[], nowMs: number, tx: Prisma.TransactionClient): Promise<void> {
  const name = slurmReservationName(change.booking.id);
  const startsAt = change.booking.startsAt.getTime() !== change.before.startsAt.getTime() && change.booking.startsAt.getTime() > nowMs ? change.booking.startsAt : undefined;
  try {
    await connection.client.updateReservation(name, { startsAt, endsAt: change.booking.endsAt });
  } catch (error) {
    if (!(error instanceof SlurmError)) throw error;
    const exists = (await connection.client.listReservations()).some((reservation) => reservation.name === name);
    if (!exists) return hold(connection, reservationSpec(change.booking, nodes, nowMs), tx);
    throw await slurmRefusal(connection, error, nodes);
  }
}

/** Slurm's "no" as gpudesk tells it: the jobs that hold or wait for those nodes' GPUs, their users and time limits. */
export async function slurmRefusal(connection: SlurmConnection, error: SlurmError, nodes: string[]): Promise<BookingBackendRefusal> {
  if (error.number !== NODES_BUSY) return new BookingBackendRefusal("slurm", `Slurm refused the reservation: ${error.message}`, "slurm_refused");
  let jobs: SlurmJob[] = [];
  try {
    jobs = (await connection.client.listJobs()).filter((job) => job.state !== "other" && job.gpusPerNode > 0 && job.nodes.some((node) => nodes.includes(node)));
  } catch {
    jobs = [];
  }
  const named = jobs.map(describeJob);
  const message =
    named.length > 0
      ? `Slurm's jobs hold these GPUs: ${named.join("; ")}. Nothing was booked`
      : `Slurm has no room for it on ${nodes.join(", ")} (${error.message}). Nothing was booked`;
  return new BookingBackendRefusal("slurm", message, "slurm_busy");
}

function describeJob(job: SlurmJob): string {
  const until = job.endsAt === null ? "without a time limit" : `until ${new Date(job.endsAt).toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const where = job.nodes.join(", ");
  return `job ${job.id} of ${job.user} (${job.gpusPerNode} GPU${job.gpusPerNode === 1 ? "" : "s"} on ${where}, ${job.state}, ${until})`;
}
