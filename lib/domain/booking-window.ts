/**
 * The time range a booking request asks for. Shared by the form (to show
 * "until Tue 14:00" before sending) and the server (which decides).
 */

export const DURATION_PRESETS = [
  { id: "1h", label: "1 hour", minutes: 60 },
  { id: "4h", label: "4 hours", minutes: 240 },
  { id: "1d", label: "1 day", minutes: 24 * 60 },
] as const;

/** A start this far in the past still means "now": the form was filled a moment ago, or clocks differ a little. */
export const START_GRACE_MS = 2 * 60_000;

export interface RequestedTimes {
  startsAt?: string;
  endsAt?: string;
  durationMinutes?: number;
}

/**
 * [startMs, endMs) of a request. No start means now; a start within the
 * grace before now is moved to now (and a duration counts from there).
 */
export function requestedWindow(request: RequestedTimes, nowMs: number): { startMs: number; endMs: number; startInPast: boolean } {
  const askedStart = request.startsAt === undefined ? nowMs : Date.parse(request.startsAt);
  const startInPast = askedStart < nowMs - START_GRACE_MS;
  const startMs = startInPast ? askedStart : Math.max(askedStart, nowMs);
  const endMs = request.endsAt !== undefined ? Date.parse(request.endsAt) : startMs + (request.durationMinutes ?? 0) * 60_000;
  return { startMs, endMs, startInPast };
}

/** "2 h", "1 d 4 h", "45 min": a duration as a person reads it. */
export function formatDurationMinutes(minutes: number): string {
  if (minutes < 60) return `${Math.round(minutes)} min`;
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = Math.round(minutes % 60);
  const parts = [days ? `${days} d` : "", hours ? `${hours} h` : "", rest ? `${rest} min` : ""].filter(Boolean);
  return parts.join(" ");
}

const DAY_MS = 24 * 3600_000;

/** The booking rules on times (the policy's longest booking and how far ahead). */
export interface TimeRules {
  maxDurationMinutes: number;
  maxAdvanceDays: number;
}

/**
 * Why the policy refuses a booking over [startMs, endMs) made at `nowMs`
 * (with the field to show it by), or null: the one rule that the booking
 * transaction enforces and the weekly series' form previews before submit.
 */
export function policyTimeRefusal(rules: TimeRules, startMs: number, endMs: number, nowMs: number): { field: "duration" | "startsAt"; message: string } | null {
  if ((endMs - startMs) / 60_000 > rules.maxDurationMinutes) return { field: "duration", message: `A booking lasts at most ${formatDurationMinutes(rules.maxDurationMinutes)}` };
  if (startMs > nowMs + rules.maxAdvanceDays * DAY_MS) return { field: "startsAt", message: `You can book at most ${rules.maxAdvanceDays} days ahead` };
  return null;
}
