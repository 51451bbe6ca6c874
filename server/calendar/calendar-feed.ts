import { storedUnit, unitsPhrase } from "@/lib/domain/gpu-availability";
import { acrossNodesPhrase, partLabel, shapeOf } from "@/lib/domain/multi-node";
import { personWithUsername } from "@/lib/format/person-name";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { formatCalendar, type CalendarEvent } from "@/server/calendar/ical";
import { calendarFeedSecret, checkCalendarFeedSecret, claimedFeedOwner } from "@/server/calendar/feed-secret";
import type { Actor } from "@/server/access/actor";
import { can } from "@/server/access/permissions";
import { readCalendarRows, type CalendarRow } from "@/server/bookings/store/schedule-rows";

/** A feed looks this far back (so last week's bookings stay in the calendar) and everything ahead. */
const PAST_DAYS = 31;
const MAX_EVENTS = 2_000;

type Row = CalendarRow;

/**
 * What an event names: the host and its units; a part of a booking across
 * nodes says which node of what ("node-a GPUs 0, 1 (2 × 2 H100, node 1 of
 * 2)"), and the whole booking, where one event stands for it, every host.
 */
function whereOf(row: Row, parts: Row[] | null, whole: boolean): string {
  const units = row.gpus.map((entry) => storedUnit(entry.gpu)).sort((a, b) => a.index - b.index || (a.mig?.deviceIndex ?? -1) - (b.mig?.deviceIndex ?? -1));
  if (!parts) return `${row.host.name} ${unitsPhrase(units)}`;
  if (whole) return acrossNodesPhrase(parts.map((part) => ({ host: part.host, gpus: part.gpus.map((entry) => entry.gpu) })));
  const shape = shapeOf(parts.map((part) => ({ gpus: part.gpus.map((entry) => entry.gpu) })));
  return `${row.host.name} ${unitsPhrase(units)} (${partLabel(shape, row.nodeRank ?? 0)})`;
}

/** The parts of each booking across nodes among the rows, in rank order. */
function partsByGroup(rows: Row[]): Map<string, Row[]> {
  const groups = new Map<string, Row[]>();
  for (const row of rows) if (row.groupId) groups.set(row.groupId, [...(groups.get(row.groupId) ?? []), row]);
  for (const parts of groups.values()) parts.sort((a, b) => (a.nodeRank ?? 0) - (b.nodeRank ?? 0));
  return groups;
}

/** A person's feed has one event per booking (a booking across nodes once); a host's, one per booking of that host. */
function toEvents(rows: Row[], withBooker: boolean): CalendarEvent[] {
  const groups = partsByGroup(rows);
  return rows
    .filter((row) => row.endsAt > row.startsAt && (withBooker || !row.groupId || row.id === row.groupId))
    .map((row) => toEvent(row, withBooker, whereOf(row, row.groupId ? (groups.get(row.groupId) ?? null) : null, !withBooker)));
}

function toEvent(row: Row, withBooker: boolean, where: string): CalendarEvent {
  const bookedBy = personWithUsername({ username: row.user.username ?? row.user.name, name: row.user.name });
  return {
    uid: `${row.id}@gpudesk`,
    startsAt: row.startsAt,
    // A booking released early ends in the calendar where it ended.
    endsAt: row.endsAt,
    summary: withBooker ? `${bookedBy}: ${where}` : `GPU booking: ${where}`,
    description: `${row.purpose}\n${where}\nBooked by ${bookedBy} (${row.id})`,
    location: where,
    cancelled: row.status === "cancelled",
  };
}

/**
 * The iCalendar text a feed address stands for: a person's bookings, or a
 * host's (for the admin it was given to, while they are one). Unknown,
 * forged or lapsed addresses are "not found": nothing tells them apart.
 */
export async function renderCalendarFeed(secret: string, now = new Date()): Promise<string> {
  const gone = new AppError("not_found", "No such calendar feed");
  const ownerId = claimedFeedOwner(secret);
  const owner = ownerId ? await db().user.findUnique({ where: { id: ownerId }, select: { calendarFeedKey: true } }) : null;
  const subject = owner ? checkCalendarFeedSecret(secret, owner.calendarFeedKey) : null;
  if (!subject) throw gone;
  const since = new Date(now.getTime() - PAST_DAYS * 24 * 3600_000);
  const active = (id: string) => db().user.findFirst({ where: { id, OR: [{ banned: false }, { banned: null }] }, select: { id: true, name: true, username: true, role: true } });
  if (subject.kind === "person") {
    const person = await active(subject.userId);
    if (!person) throw gone;
    const rows = await readCalendarRows({ userId: person.id }, since, MAX_EVENTS);
    return formatCalendar(`gpudesk: ${person.name || person.username}'s GPU bookings`, toEvents(rows, false), now);
  }
  const [admin, host] = await Promise.all([active(subject.adminId), db().host.findUnique({ where: { id: subject.hostId }, select: { id: true, name: true } })]);
  if (!admin || !can.subscribeToHostCalendars(admin) || !host) throw gone;
  const rows = await readCalendarRows({ hostId: host.id }, since, MAX_EVENTS);
  return formatCalendar(`gpudesk: bookings of ${host.name}`, toEvents(rows, true), now);
}

export interface CalendarFeedLinks {
  mine: string;
  /** One per host, for admins only. */
  hosts: { name: string; path: string }[];
}

/** The feed paths a person may subscribe to (their own; an admin also each host's). */
export async function listCalendarFeeds(actor: Actor): Promise<CalendarFeedLinks> {
  const path = (secret: string) => `/api/v1/calendar/${secret}.ics`;
  const { calendarFeedKey: key } = await db().user.findUniqueOrThrow({ where: { id: actor.id }, select: { calendarFeedKey: true } });
  const mine = path(calendarFeedSecret({ kind: "person", userId: actor.id }, key));
  if (!can.subscribeToHostCalendars(actor)) return { mine, hosts: [] };
  const hosts = await db().host.findMany({ orderBy: { name: "asc" }, select: { id: true, name: true } });
  return { mine, hosts: hosts.map((host) => ({ name: host.name, path: path(calendarFeedSecret({ kind: "host", hostId: host.id, adminId: actor.id }, key)) })) };
}
