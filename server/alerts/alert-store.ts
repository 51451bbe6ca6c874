import type { Prisma } from "@prisma/client";
import { ALERT_KINDS, type AlertBookingLink, type AlertKind, type AlertView } from "@/lib/domain/alerts";
import { bookingPath } from "@/lib/domain/booking-link";
import { namedBookings, type NamedBooking } from "@/server/bookings/store/named-bookings";
import type { PersonRef } from "@/lib/domain/booking-types";
import type { ClosedAlert, OpenedAlert, RestoredAlert } from "@/server/alerts/alert-engine";
import { gpuScope, hostScope } from "@/server/alerts/alert-rules";
import { db } from "@/server/core/db";
import { personSelect, toPerson } from "@/server/core/people";
import { storedUnit, unitName } from "@/lib/domain/gpu-availability";

export const alertSelect = {
  id: true,
  kind: true,
  subjectKey: true,
  hostId: true,
  gpuUuid: true,
  gpuIndex: true,
  reservationId: true,
  userIds: true,
  message: true,
  evidence: true,
  openedAt: true,
  closedAt: true,
  acknowledgedAt: true,
  acknowledgedById: true,
} satisfies Prisma.AlertSelect;

export type AlertRow = Prisma.AlertGetPayload<{ select: typeof alertSelect }>;

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function userIdsOf(row: Pick<AlertRow, "userIds">): string[] {
  const ids = parseJson<unknown>(row.userIds, []);
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
}

/** The rules list the booker first for every alert about a booking (see alert-rules.ts). */
export function bookedByIdOf(row: Pick<AlertRow, "userIds" | "reservationId">): string | null {
  return row.reservationId ? (userIdsOf(row)[0] ?? null) : null;
}

export function toKind(kind: string): AlertKind {
  return (ALERT_KINDS as readonly string[]).includes(kind) ? (kind as AlertKind) : "conflict";
}

/** Which observation an alert of this kind depends on (see alert-rules.ts). */
export function scopeOfAlert(row: Pick<AlertRow, "kind" | "hostId" | "gpuUuid">): string {
  if (row.kind === "host_offline" || row.kind === "gpu_lost" || !row.gpuUuid) return hostScope(row.hostId ?? "");
  return gpuScope(row.gpuUuid);
}

/**
 * Stores a newly opened alert. One open alert per subject: if one is open
 * already (two server processes, a race with a restart), that one is kept.
 */
export async function insertOpenedAlert(opened: OpenedAlert): Promise<AlertRow> {
  const { condition } = opened;
  return db().$transaction(async (tx) => {
    const existing = await tx.alert.findFirst({ where: { subjectKey: condition.key, closedAt: null }, select: alertSelect });
    if (existing) return existing;
    return tx.alert.create({
      data: {
        kind: condition.kind,
        subjectKey: condition.key,
        hostId: condition.hostId,
        gpuUuid: condition.gpuUuid,
        gpuIndex: condition.gpuIndex,
        reservationId: condition.bookingId,
        userIds: JSON.stringify(condition.userIds),
        message: condition.message,
        evidence: JSON.stringify({ ...condition.evidence, since: new Date(opened.since).toISOString() }),
        openedAt: new Date(opened.openedAt),
      },
      select: alertSelect,
    });
  });
}

/** Closes the open alert of a subject; null when there was none (already closed elsewhere). */
export async function closeOpenAlert(closed: ClosedAlert): Promise<AlertRow | null> {
  const row = await db().alert.findFirst({ where: { subjectKey: closed.key, closedAt: null }, select: alertSelect });
  if (!row) return null;
  const evidence = { ...parseJson<Record<string, unknown>>(row.evidence, {}), closeReason: closed.reason };
  return db().alert.update({
    where: { id: row.id },
    data: { closedAt: new Date(closed.closedAt), evidence: JSON.stringify(evidence) },
    select: alertSelect,
  });
}

/** The open alerts, for the monitor after a restart. */
export async function loadOpenAlerts(): Promise<AlertRow[]> {
  return db().alert.findMany({ where: { closedAt: null }, select: alertSelect, orderBy: { openedAt: "asc" } });
}

/** What the engine needs to carry an open alert on. */
export function toRestoredAlert(row: AlertRow): RestoredAlert {
  return { key: row.subjectKey, kind: toKind(row.kind), scope: scopeOfAlert(row), openedAt: row.openedAt.getTime() };
}

/** Each unit by its one name ("GPU 0:2 (1g.10gb)"), as stored. */
export async function unitNamesOf(uuids: string[]): Promise<Map<string, string>> {
  if (uuids.length === 0) return new Map();
  const gpus = await db().gpu.findMany({ where: { uuid: { in: uuids } }, select: { uuid: true, index: true, migDeviceIndex: true, migProfile: true } });
  return new Map(gpus.map((gpu) => [gpu.uuid, unitName(storedUnit(gpu))]));
}

/** An alert's unit by its one name (`unitNamesOf`); a GPU no longer stored by its index. */
export function alertUnitName(names: ReadonlyMap<string, string>, alert: { gpuUuid: string | null; gpuIndex: number | null }): string | null {
  return (alert.gpuUuid ? names.get(alert.gpuUuid) : undefined) ?? (alert.gpuIndex === null ? null : unitName({ index: alert.gpuIndex }));
}

/** Rows as the API and the socket show them: people and hosts by name, evidence parsed. */
export async function toAlertViews(rows: AlertRow[]): Promise<AlertView[]> {
  const personIds = new Set<string>();
  const hostIds = new Set<string>();
  const gpuUuids = new Set<string>();
  for (const row of rows) {
    for (const id of userIdsOf(row)) personIds.add(id);
    if (row.acknowledgedById) personIds.add(row.acknowledgedById);
    if (row.hostId) hostIds.add(row.hostId);
    if (row.gpuUuid) gpuUuids.add(row.gpuUuid);
  }
  const [users, hosts, gpus] = await Promise.all([
    personIds.size === 0 ? [] : db().user.findMany({ where: { id: { in: [...personIds] } }, select: personSelect }),
    hostIds.size === 0 ? [] : db().host.findMany({ where: { id: { in: [...hostIds] } }, select: { id: true, name: true } }),
    unitNamesOf([...gpuUuids]),
  ]);
  const personById = new Map<string, PersonRef>(users.map((user) => [user.id, toPerson(user)]));
  const hostById = new Map(hosts.map((host) => [host.id, host]));
  const bookings = await alertBookings(rows);

  return rows.map((row) => ({
    id: row.id,
    kind: toKind(row.kind),
    subjectKey: row.subjectKey,
    host: row.hostId ? (hostById.get(row.hostId) ?? { id: row.hostId, name: row.hostId }) : null,
    gpu: row.gpuUuid ? { uuid: row.gpuUuid, index: row.gpuIndex, unit: alertUnitName(gpus, row) } : null,
    reservationId: row.reservationId,
    bookedById: bookedByIdOf(row),
    people: userIdsOf(row).flatMap((id) => {
      const person = personById.get(id);
      return person ? [person] : [];
    }),
    message: row.message,
    evidence: parseJson<Record<string, unknown>>(row.evidence, {}),
    openedAt: row.openedAt.toISOString(),
    closedAt: row.closedAt?.toISOString() ?? null,
    acknowledgedAt: row.acknowledgedAt?.toISOString() ?? null,
    acknowledgedBy: row.acknowledgedById ? (personById.get(row.acknowledgedById) ?? null) : null,
    bookings: bookings.get(row.id) ?? [],
  }));
}

/** How many bookings a silent host's alert links to at most. */
const HOST_ALERT_BOOKINGS = 5;

/**
 * The bookings each alert links to: the one it is about (`reservationId`;
 * a part of a booking across nodes stands for its booking), or, for a host
 * that went silent, those holding a unit of the host while the alert was
 * open (a failed node's booking, before and after it was moved).
 */
async function alertBookings(rows: readonly AlertRow[]): Promise<Map<string, AlertBookingLink[]>> {
  const links = new Map<string, AlertBookingLink[]>();
  const toLink = (booking: NamedBooking): AlertBookingLink => ({ id: booking.id, name: booking.name, bookedById: booking.bookedById, path: bookingPath(booking.id) });
  const ids = [...new Set(rows.flatMap((row) => (row.reservationId ? [row.reservationId] : [])))];
  const named = await namedBookings(db(), { ids, limit: ids.length });
  for (const row of rows) {
    if (row.reservationId) {
      const booking = named.find((entry) => entry.partIds.includes(row.reservationId as string));
      if (booking) links.set(row.id, [toLink(booking)]);
    } else if (row.kind === "host_offline" && row.hostId) {
      // From when the host fell silent (the alert opens after its hold): a node moved within the hold is linked too.
      const since = Date.parse(String(parseJson<Record<string, unknown>>(row.evidence, {}).since ?? ""));
      const from = Number.isFinite(since) ? new Date(Math.min(since, row.openedAt.getTime())) : row.openedAt;
      const held = await namedBookings(db(), { hostIds: [row.hostId], from, to: row.closedAt ?? new Date(), limit: HOST_ALERT_BOOKINGS });
      links.set(row.id, held.map(toLink));
    }
  }
  return links;
}

export async function toAlertView(row: AlertRow): Promise<AlertView> {
  const [view] = await toAlertViews([row]);
  return view;
}
