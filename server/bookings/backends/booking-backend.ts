import type { Prisma } from "@prisma/client";
import { AppError, type AppErrorCode } from "@/server/core/errors";
import { log } from "@/server/core/log";
import type { Actor } from "@/server/access/actor";

/**
 * Booking backends: what holds a booking besides gpudesk's own calendar
 * (next: a Slurm reservation per booking). Every change of a booking's life
 * passes through each registered backend, in registration order:
 *
 * - created        a booking was written (one host, or across nodes: one change for the whole booking)
 * - changed        its end moved (extended, shortened)
 * - ended          released or cancelled by a person, or released for idleness; a booking whose end
 *                  time comes ("expired") is written by nobody and passes through no hook: every
 *                  backend was told the end time when the booking was created or changed
 * - part-replaced  one node of a booking across nodes moved to another host
 * - kept           its idle clock started again ("keep"): nothing a backend holds changes, but the
 *                  change is the booking's like any other (announced once, after the commit)
 * - idle-warned    idle release warned its booker (once per idle run): likewise nothing to hold
 *
 * When each hook is called, and what a backend may do there:
 *
 * `beforeCommit(change, tx)` runs INSIDE the booking's write transaction,
 * after gpudesk wrote the change and before it commits; the host rows of the
 * booking are locked (server/bookings/store/booking-transaction.ts), so no
 * other booking of those hosts can commit meanwhile. `change.booking` is the
 * booking as written in this transaction. A backend may read through `tx`,
 * and may call out (a network call to slurmrestd is expected here: the
 * booking answers 201 only once the backend holds it). To refuse, throw
 * `BookingBackendRefusal`: the transaction rolls back whole (nothing of the
 * change is stored, no audit entry) and the caller gets it as an AppError
 * (409 unless the refusal names another code). Any other error rolls back
 * too and answers 500. Keep it short: the transaction's time limit (15 s on
 * SQLite, 60 s on PostgreSQL) covers the whole booking, and on SQLite every
 * other write waits meanwhile. A backend that did something outside the
 * database before a later backend refused must undo it itself (a later
 * `beforeCommit` refusal is not reported back); its `afterCommit` is then not
 * called for that change.
 *
 * `afterCommit(change)` runs OUTSIDE any transaction, after the commit, once
 * per change, with the same `change`. Nothing can be refused there any
 * more: an error is logged and swallowed (a booking is not undone because a
 * follower failed); a backend that must retry does so on its own job.
 *
 * The local calendar is gpudesk's own tables and needs no backend: with none
 * registered, the hooks cost nothing (no booking is read for them).
 */
export interface BookingBackend {
  /** Shown in the log and in refusals' log lines ("slurm"). */
  readonly name: string;
  beforeCommit?(change: BookingChange, tx: Prisma.TransactionClient): Promise<void>;
  afterCommit?(change: BookingChange): Promise<void> | void;
}

/** One GPU or MIG slice held by a part of a booking. */
export interface BookedUnit {
  gpuId: string;
  uuid: string;
  /** The GPU's index on its host (a slice: its GPU's). */
  index: number;
  migDeviceIndex: number | null;
  migProfile: string | null;
}

/** One host's share of a booking: a one-host booking has one part; a booking across nodes one per node. */
export interface BookedPart {
  /** The part's own row (Reservation.id); the first part's is the booking's id. */
  partId: string;
  hostId: string;
  hostName: string;
  nodeRank: number | null;
  units: BookedUnit[];
}

/** A booking as the transaction that changes it left it. */
export interface BookedBooking {
  /** The booking's id: a one-host booking's row id, or a booking across nodes' group id (its node-0 part). */
  id: string;
  bookedById: string;
  bookedByUsername: string;
  /** The booker's Unix login, where gpudesk knows one (Slurm's reservation needs it). */
  bookedByUnixLogin: string | null;
  teamId: string | null;
  purpose: string;
  startsAt: Date;
  endsAt: Date;
  /** "booked", "released" or "cancelled" (stored status; "expired" is derived from the time). */
  status: string;
  parts: BookedPart[];
}

/** The booking's times, before or after a change. */
export interface BookingTimes {
  startsAt: Date;
  endsAt: Date;
}

/**
 * What a command records inside its transaction, one per change of a
 * booking's life: what changed, the booking's id and every part's id, who
 * made it (null: gpudesk itself, as idle release) and the before and after
 * its followers need. The transaction hands each record, with the booking
 * read whole, to the backends (`BookingChange`), and announces each record
 * once after the commit (server/bookings/store/booking-events.ts).
 */
export type BookingChangeRecord = { bookingId: string; partIds: string[]; by: Actor | null } & (
  | { kind: "created"; after: BookingTimes }
  | { kind: "changed"; how: "extended" | "shortened"; before: BookingTimes; after: BookingTimes }
  | { kind: "ended"; how: "released" | "cancelled" | "idle-released"; before: BookingTimes; after: BookingTimes }
  | { kind: "part-replaced"; partId: string; fromHostId: string; toHostId: string }
  | { kind: "kept" }
  /** Idle release warned its booker (the durable claim on the warning, one per idle run): nothing a backend holds changes. */
  | { kind: "idle-warned"; idleSince: Date; at: Date }
);

/** A change as a backend sees it: the record, with the booking as the transaction left it, whole. */
export type BookingChange = BookingChangeRecord extends infer Record ? (Record extends BookingChangeRecord ? Omit<Record, "bookingId"> & { booking: BookedBooking } : never) : never;

/** A backend's "no": rolls the booking's transaction back and answers as an AppError (409 unless `code` says otherwise). */
export class BookingBackendRefusal extends AppError {
  constructor(
    readonly backend: string,
    message: string,
    code: AppErrorCode = "booking_refused",
  ) {
    super(code, message);
  }
}

// Route bundles and the custom server load their own copies of this module; the
// backends registered at start (in the server) must be the ones every booking meets.
const shared = globalThis as unknown as { __gpudeskBookingBackends?: BookingBackend[] };
const backends = (): BookingBackend[] => (shared.__gpudeskBookingBackends ??= []);

/** Registers a backend (at start, in the composition); the returned function takes it out again. */
export function registerBookingBackend(backend: BookingBackend): () => void {
  backends().push(backend);
  return () => {
    const list = backends();
    const at = list.indexOf(backend);
    if (at >= 0) list.splice(at, 1);
  };
}

/** Whether any backend listens: without one, the store reads nothing for them. */
export function bookingBackendsListening(): boolean {
  return backends().length > 0;
}

/** Runs every backend's `beforeCommit` on the changes, in order; the first refusal (or error) stops and is thrown. */
export async function beforeCommit(changes: BookingChange[], tx: Prisma.TransactionClient): Promise<void> {
  for (const change of changes) {
    for (const backend of [...backends()]) {
      if (!backend.beforeCommit) continue;
      try {
        await backend.beforeCommit(change, tx);
      } catch (error) {
        if (error instanceof BookingBackendRefusal) log.warn(`booking backend ${backend.name} refused ${change.kind} of booking ${change.booking.id}: ${error.message}`);
        throw error;
      }
    }
  }
}

/** Runs every backend's `afterCommit` on the committed changes; errors are logged, never thrown. */
export async function afterCommit(changes: BookingChange[]): Promise<void> {
  for (const change of changes) {
    for (const backend of [...backends()]) {
      if (!backend.afterCommit) continue;
      try {
        await backend.afterCommit(change);
      } catch (error) {
        log.error(`booking backend ${backend.name} failed after ${change.kind} of booking ${change.booking.id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}
