import { policyTimeRefusal, type TimeRules } from "@/lib/domain/booking-window";
import * as z from "zod";
import { isMultiNodeBody, multiNodeRequestSchema, bookingRequestSchema } from "@/lib/domain/booking-schema";

/**
 * Weekly bookings ("every weekday 9–12 for a course"): the occurrences of a
 * first booking on chosen weekdays, at the same wall-clock time in the
 * person's zone, for up to MAX_WEEKS weeks. Each occurrence is then booked
 * and checked like a single booking (server/bookings/commands/create-recurring.ts).
 */

export const MAX_WEEKS = 12;
/** 0 Sunday … 6 Saturday, as Date.getDay(). */
export const WEEKDAY_NAMES = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;

const zoneName = z
  .string()
  .max(64)
  .refine((zone) => {
    try {
      new Intl.DateTimeFormat("en", { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, "Unknown time zone");

export const recurringRequestSchema = z.strictObject({
  /** The first occurrence, as a single booking with a start and a duration. */
  booking: bookingRequestSchema,
  weekdays: z.array(z.int().min(0).max(6)).min(1, "Choose at least one weekday").max(7),
  weeks: z.int("Enter whole weeks").min(1, "At least 1 week").max(MAX_WEEKS, `At most ${MAX_WEEKS} weeks ahead`),
  /** The zone whose wall clock the occurrences keep (the browser's). */
  timeZone: zoneName,
});
/** A weekly series of a booking across nodes: the first occurrence as one booking across nodes; each occurrence is made whole or refused whole. */
export const recurringMultiNodeRequestSchema = recurringRequestSchema.extend({ booking: multiNodeRequestSchema });

/** The series schema for a body: across nodes when its first booking asks for nodes or parts. */
export function recurringSchemaFor(body: unknown): typeof recurringRequestSchema | typeof recurringMultiNodeRequestSchema {
  const booking = typeof body === "object" && body !== null ? (body as { booking?: unknown }).booking : undefined;
  return isMultiNodeBody(booking) ? recurringMultiNodeRequestSchema : recurringRequestSchema;
}

export type RecurringRequest = z.infer<typeof recurringRequestSchema> | z.infer<typeof recurringMultiNodeRequestSchema>;

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function wallClock(ms: number, timeZone: string): WallClock {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", weekday: "short", hourCycle: "h23" });
    formatters.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(ms).map((part) => [part.type, part.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    weekday: WEEKDAY_NAMES.indexOf(parts.weekday as (typeof WEEKDAY_NAMES)[number]),
  };
}

/** The instant a wall-clock time names in a zone (the later one where a clock change repeats it). */
export function zonedInstant(year: number, month: number, day: number, hour: number, minute: number, timeZone: string): number {
  const asUtc = Date.UTC(year, month - 1, day, hour, minute);
  const offsetAt = (ms: number) => {
    const clock = wallClock(ms, timeZone);
    return Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute) - Math.floor(ms / 60_000) * 60_000;
  };
  const first = asUtc - offsetAt(asUtc);
  return asUtc - offsetAt(first);
}

/**
 * The starts of every occurrence: from the first booking's day, for `weeks`
 * weeks, each chosen weekday at the first booking's wall-clock time. The
 * first booking's own day counts only when its weekday is chosen.
 */
export function weeklyStarts(firstStartMs: number, weekdays: readonly number[], weeks: number, timeZone: string): number[] {
  const first = wallClock(firstStartMs, timeZone);
  const chosen = new Set(weekdays);
  const starts: number[] = [];
  for (let offset = 0; offset < weeks * 7; offset += 1) {
    // Date.UTC normalises day overflow into the next month; only the calendar date is read from it.
    const date = new Date(Date.UTC(first.year, first.month - 1, first.day + offset));
    if (!chosen.has(date.getUTCDay())) continue;
    starts.push(zonedInstant(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), first.hour, first.minute, timeZone));
  }
  return starts;
}

/** One day of a weekly series as the form previews it: when, and why the policy would refuse it (null: it would not). */
export interface SeriesDay {
  startMs: number;
  refusal: string | null;
}

/**
 * The series' days before submit, each checked against the policy's time
 * rules (policyTimeRefusal, the rule the booking transaction applies to each
 * occurrence), so that the form lists what would be refused and why.
 * Overlaps and limits are judged at submit, when the bookings are made.
 */
export function previewSeries(firstStartMs: number, durationMs: number, weekdays: readonly number[], weeks: number, timeZone: string, rules: TimeRules, nowMs: number): SeriesDay[] {
  return weeklyStarts(firstStartMs, weekdays, weeks, timeZone).map((startMs) => ({ startMs, refusal: policyTimeRefusal(rules, startMs, startMs + durationMs, nowMs)?.message ?? null }));
}
