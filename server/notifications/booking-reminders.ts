import { periodicJob } from "@/server/core/jobs";
import { notifyPerson, type PersonNotice } from "@/server/notifications/notify-person";
import { onBookingsChanged } from "@/server/bookings/store/booking-events";
import { readBookingsToRemind } from "@/server/bookings/store/notice-reads";
import { storedUnit, unitsPhrase } from "@/lib/domain/gpu-availability";
import { hostList, multiNodeLabel, shapeOf } from "@/lib/domain/multi-node";

/** "Starts in 15 minutes", "ends in 15 minutes". */
export const REMINDER_LEAD_MS = 15 * 60_000;
/** How often the stored bookings are looked at (and at once whenever bookings change). */
const INTERVAL_MS = 30_000;

export interface ReminderBooking {
  id: string;
  userId: string;
  hostName: string;
  gpuIndices: number[];
  /** The booking's units by their one name: "GPU 0:2 (1g.10gb)", "GPUs 2, 3". */
  units: string;
  purpose: string;
  startsAt: Date;
  endsAt: Date;
}

function minutesUntil(at: Date, now: Date): number {
  return Math.max(1, Math.round((at.getTime() - now.getTime()) / 60_000));
}

function gpusOf(booking: ReminderBooking): string {
  return `${booking.units} on ${booking.hostName}`;
}

/**
 * The reminders due now, from the bookings alone: a booking that starts
 * within REMINDER_LEAD_MS, and one running that ends within it. Each is
 * keyed by the booking and the time it names, so it is given once, and an
 * extended booking is reminded again of its new end.
 */
export function dueReminders(now: Date, bookings: ReminderBooking[]): PersonNotice[] {
  const horizon = now.getTime() + REMINDER_LEAD_MS;
  const notices: PersonNotice[] = [];
  for (const booking of bookings) {
    const starts = booking.startsAt.getTime();
    const ends = booking.endsAt.getTime();
    if (starts > now.getTime() && starts <= horizon) {
      const minutes = minutesUntil(booking.startsAt, now);
      notices.push({
        userId: booking.userId,
        event: "booking.starts_soon",
        subjectId: booking.id,
        title: `Your booking of ${gpusOf(booking)} starts in ${minutes} minutes`,
        text: `Your booking "${booking.purpose}" (${gpusOf(booking)}) starts at ${booking.startsAt.toISOString()}, in ${minutes} minutes. Its launch settings are on your reservations page.`,
        path: "/reservations",
        onceKey: `booking.starts_soon:${booking.id}:${starts}`,
        now,
      });
    }
    if (starts <= now.getTime() && ends > now.getTime() && ends <= horizon) {
      const minutes = minutesUntil(booking.endsAt, now);
      notices.push({
        userId: booking.userId,
        event: "booking.ends_soon",
        subjectId: booking.id,
        title: `Your booking of ${gpusOf(booking)} ends in ${minutes} minutes`,
        text: `Your booking "${booking.purpose}" (${gpusOf(booking)}) ends at ${booking.endsAt.toISOString()}, in ${minutes} minutes. Extend it on your reservations page if you still need the GPUs, or save your work.`,
        path: "/reservations",
        onceKey: `booking.ends_soon:${booking.id}:${ends}`,
        now,
      });
    }
  }
  return notices;
}

/** Reads the bookings that may be due and gives each due reminder once; answers how many were given now. */
export async function sendBookingReminders(now = new Date(), options: { publicUrl?: string } = {}): Promise<number> {
  const horizon = new Date(now.getTime() + REMINDER_LEAD_MS);
  const rows = await readBookingsToRemind(now, horizon);
  // A booking across nodes is reminded of once, by its first part, naming every node ("2 × 4 H100 on node-a and node-b").
  const parts = new Map<string, typeof rows>();
  for (const row of rows) if (row.groupId) parts.set(row.groupId, [...(parts.get(row.groupId) ?? []), row].sort((a, b) => (a.nodeRank ?? 0) - (b.nodeRank ?? 0)));
  const bookings = rows
    .filter((row) => !row.groupId || row.id === row.groupId)
    .map((row) => {
      const group = row.groupId ? parts.get(row.groupId) : undefined;
      return {
        id: row.id,
        userId: row.userId,
        purpose: row.purpose,
        startsAt: row.startsAt,
        endsAt: row.endsAt,
        hostName: group ? hostList(group.map((part) => part.host.name)) : row.host.name,
        gpuIndices: row.gpus.map((gpu) => gpu.gpu.index).sort((a, b) => a - b),
        units: group
          ? multiNodeLabel(shapeOf(group.map((part) => ({ gpus: part.gpus.map((gpu) => gpu.gpu) }))))
          : unitsPhrase(row.gpus.map((gpu) => storedUnit(gpu.gpu)).sort((a, b) => a.index - b.index)),
      };
    });
  let given = 0;
  for (const notice of dueReminders(now, bookings)) {
    if (!(await notifyPerson(notice, options)).repeated) given += 1;
  }
  return given;
}

/**
 * The reminders' leader job: looks at the stored bookings every 30 s and
 * whenever they change. Nothing is kept in memory between passes: what was
 * given is in PersonNotice, so a restart or a new leader goes on without
 * repeating one.
 */
export function startBookingReminders(options: { publicUrl?: string; intervalMs?: number } = {}): { stop: () => void } {
  const job = periodicJob({ name: "booking reminders", everyMs: options.intervalMs ?? INTERVAL_MS, run: () => sendBookingReminders(new Date(), options).then(() => undefined) });
  const unsubscribe = onBookingsChanged(() => job.poke());
  const stop = job.start();
  return {
    stop() {
      void stop();
      unsubscribe();
    },
  };
}
