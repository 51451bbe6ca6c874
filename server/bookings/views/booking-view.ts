import type { Prisma, PrismaClient } from "@prisma/client";
import { launchSettings } from "@/lib/domain/launch-settings";
import { slurmLaunch, slurmReservationName, type SlurmBookingView } from "@/lib/domain/slurm";
import { slurmConnection } from "@/server/slurm/slurm-connection";
import { storedUnit, unitsPhrase } from "@/lib/domain/gpu-availability";
import { acrossNodesPhrase } from "@/lib/domain/multi-node";
import { bookingState, type BookingStatus } from "@/lib/domain/booking-state";
import type { BookingAuditAction as AuditAction, BookingChangeView, BookingView, ReservedGpu } from "@/lib/domain/booking-types";
import { personSelect, toPerson } from "@/server/core/people";
import { bookingClaimValue } from "@/server/bookings/rules/booking-proof";
import { readBookingUnits, type BookingRow } from "@/server/bookings/store/booking-rows";
import { readGroupNodes } from "@/server/bookings/store/booking-parts";

const CHANGE_ACTIONS: AuditAction[] = ["reservation.extend", "reservation.shorten", "reservation.release", "reservation.cancel"];

/** Changes after creation, per booking id, oldest first: where the booker reads an admin's reason. */
export async function loadChanges(client: PrismaClient | Prisma.TransactionClient, ids: string[]): Promise<Map<string, BookingChangeView[]>> {
  const byId = new Map<string, BookingChangeView[]>();
  if (ids.length === 0) return byId;
  const rows = await client.auditLog.findMany({
    where: { entityType: "reservation", entityId: { in: ids }, action: { in: CHANGE_ACTIONS } },
    orderBy: [{ at: "asc" }],
    select: { at: true, action: true, entityId: true, before: true, after: true, actor: { select: personSelect } },
  });
  for (const row of rows) {
    const before = safeObject(row.before);
    const after = safeObject(row.after);
    const list = byId.get(row.entityId) ?? [];
    list.push({
      at: row.at.toISOString(),
      action: row.action as AuditAction,
      actor: row.actor ? toPerson(row.actor) : null,
      reason: typeof after.reason === "string" ? after.reason : null,
      endsAtBefore: typeof before.endsAt === "string" ? before.endsAt : null,
      endsAtAfter: typeof after.endsAt === "string" ? after.endsAt : null,
    });
    byId.set(row.entityId, list);
  }
  return byId;
}

function safeObject(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The API's view of a booking, for `viewerId`. Launch settings use each
 * GPU's index as last reported: if a reboot renumbered the GPUs, the
 * settings follow the UUIDs that were booked. Only the booker's view carries
 * the booking's proof (the `GPUDESK_RESERVATION` lines); an admin looking at
 * someone else's booking gets the rest.
 */
export function toBookingView(row: BookingRow, nowMs: number, viewerId: string | null, changes: BookingChangeView[] = []): BookingView {
  const gpus: ReservedGpu[] = row.gpus
    .map(({ gpu: { migDeviceIndex, migProfile, ...gpu } }): ReservedGpu =>
      migDeviceIndex === null ? gpu : { ...gpu, mig: { deviceIndex: migDeviceIndex, profile: migProfile ?? "" } },
    )
    .sort((a, b) => a.index - b.index || (a.mig?.deviceIndex ?? -1) - (b.mig?.deviceIndex ?? -1));
  return {
    id: row.id,
    state: bookingState(row, nowMs),
    status: row.status as BookingStatus,
    host: row.host,
    gpus,
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    purpose: row.purpose,
    bookedBy: toPerson(row.user),
    createdAt: row.createdAt.toISOString(),
    cancelReason: row.cancelReason,
    cancelledBy: row.cancelledBy ? toPerson(row.cancelledBy) : null,
    changes,
    launch: { ...launchSettings(gpus, viewerId === row.userId ? bookingClaimValue(row.id) : null), ...slurmLines(row) },
    releasedBecause: row.releasedBecause === "idle" ? "idle" : null,
    idle: null,
    ...(row.slurmState ? { slurm: slurmView(row) } : {}),
  };
}

/** The booking's Slurm side; its reservation is named after the booking (across nodes: after its group). */
function slurmView(row: BookingRow): SlurmBookingView | null {
  if (row.slurmState !== "held" && row.slurmState !== "missing") return null;
  const bookingId = row.groupId ?? row.id;
  // The indices Slurm gave the booker's jobs (gres_detail), once one runs: Slurm, not gpudesk, picks them on its nodes.
  const jobs = (slurmConnection()?.calendar.runs ?? [])
    .filter((run) => run.bookingId === bookingId)
    .map((run) => ({ id: run.jobId, user: run.user, host: run.hostName, gpuIndices: run.gpuIndices }));
  return { reservation: slurmReservationName(bookingId), state: row.slurmState, message: row.slurmMessage, ...(jobs.length > 0 ? { jobs } : {}) };
}

function slurmLines(row: BookingRow): { sbatch?: string; srun?: string } {
  const view = slurmView(row);
  return view ? slurmLaunch(view.reservation, row.gpus.length, row.nodeCount ?? 1) : {};
}

/**
 * "node-a GPU 0:2 (1g.10gb)": the booking's host and units as every surface
 * names them, kept in each audit entry of a change, so that "Released" says
 * what was released; a booking across nodes once, with every node ("2 × 8
 * H100 on h100-03 and h100-04"), whichever part the change went through.
 */
export async function auditBookingName(client: Prisma.TransactionClient | PrismaClient, bookingId: string): Promise<string> {
  const row = await readBookingUnits(client, bookingId);
  if (row.groupId) {
    const parts = await readGroupNodes(client, row.groupId);
    return acrossNodesPhrase(parts.map((part) => ({ host: part.host, gpus: part.gpus.map(({ gpu }) => gpu) })));
  }
  const units = row.gpus.map(({ gpu }) => storedUnit(gpu)).sort((a, b) => a.index - b.index || (a.mig?.deviceIndex ?? -1) - (b.mig?.deviceIndex ?? -1));
  return `${row.host.name} ${unitsPhrase(units)}`;
}

/** What the audit log keeps of a booking, before and after a change (`booking`: `auditBookingName`). */
export function auditSnapshot(row: { startsAt: Date; endsAt: Date; status: string; purpose: string }, extra: Record<string, unknown> = {}) {
  return { startsAt: row.startsAt.toISOString(), endsAt: row.endsAt.toISOString(), status: row.status, purpose: row.purpose, ...extra };
}
