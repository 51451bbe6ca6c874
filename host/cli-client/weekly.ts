import { MAX_WEEKS, WEEKDAY_NAMES } from "@/lib/domain/recurrence";
import { bookedPhrase } from "@/lib/domain/multi-node";
import type { BookingView } from "@/lib/domain/booking-types";
import { formatTime } from "@/host/cli-client/format-output";
import { UsageError } from "@/host/cli-client/cli-errors";

/**
 * `gpudesk reserve --weekly mon,wed --weeks 4`: the booking made now (or its
 * first occurrence), again on those weekdays at the same time of day, as the
 * form's "Repeat weekly" does (POST /api/v1/reservations/recurring; one host
 * or across nodes).
 */

const DAY_WORDS = new Map<string, number>(
  WEEKDAY_NAMES.flatMap((name, day) => {
    const full = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"][day]!;
    return [[name.toLowerCase(), day], [full, day]] as [string, number][];
  }),
);

/** "mon,wed", "Mon-Fri", "tue,thu,sat": the weekdays, 0 Sunday … 6 Saturday, sorted; a clear error for anything else. */
export function parseWeekdays(text: string): number[] {
  const days = new Set<number>();
  const dayOf = (word: string) => {
    const day = DAY_WORDS.get(word.trim().toLowerCase());
    if (day === undefined) throw new UsageError(`--weekly: "${word.trim()}" is not a weekday (mon, tue, wed, thu, fri, sat, sun; a range such as mon-fri)`);
    return day;
  };
  for (const item of text.split(",")) {
    if (item.trim() === "") continue;
    const range = item.split("-");
    if (range.length > 2) throw new UsageError(`--weekly: "${item.trim()}" is not a weekday or a range such as mon-fri`);
    if (range.length === 1) {
      days.add(dayOf(item));
      continue;
    }
    const [from, to] = [dayOf(range[0]!), dayOf(range[1]!)];
    // A range wraps past Saturday as a week does: fri-mon is Fri, Sat, Sun, Mon.
    for (let day = from; ; day = (day + 1) % 7) {
      days.add(day);
      if (day === to) break;
    }
  }
  if (days.size === 0) throw new UsageError("--weekly needs at least one weekday, e.g. --weekly mon,wed");
  return [...days].sort((a, b) => a - b);
}

/** --weeks: whole weeks, 1 to MAX_WEEKS (the server's rule, said before asking it). */
export function parseWeeks(text: string | undefined): number {
  if (text === undefined) throw new UsageError("--weekly needs --weeks: for how many weeks (1 to 12)?");
  const weeks = Number(text);
  if (!Number.isInteger(weeks) || weeks < 1 || weeks > MAX_WEEKS) throw new UsageError(`--weeks: whole weeks from 1 to ${MAX_WEEKS}, not "${text}"`);
  return weeks;
}

export interface SeriesAnswer {
  created: BookingView[];
  refused: { startsAt: string; endsAt: string; code: string; message: string }[];
}

/** What a weekly series made and what it could not, each occurrence on its line, refusals with their reason. */
export function formatSeries(series: SeriesAnswer, weekdays: readonly number[], weeks: number): string {
  const all = series.created.length + series.refused.length;
  const days = weekdays.map((day) => WEEKDAY_NAMES[day]).join(", ");
  const lines = [`Booked ${series.created.length} of ${all} occurrence${all === 1 ? "" : "s"} (every ${days} for ${weeks} week${weeks === 1 ? "" : "s"}):`];
  for (const booking of series.created) lines.push(`  ${formatTime(booking.startsAt)} to ${formatTime(booking.endsAt)}  ${bookedPhrase(booking)}  ${booking.id}`);
  if (series.refused.length > 0) {
    lines.push("Refused:");
    for (const refused of series.refused) lines.push(`  ${formatTime(refused.startsAt)} to ${formatTime(refused.endsAt)}  ${refused.message}`);
  }
  return `${lines.join("\n")}\n`;
}
