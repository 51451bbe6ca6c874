import { formatDurationMinutes } from "@/lib/domain/booking-window";
import type { HostRule, LimitKind, Limits, QuotaExceededBody, QuotaRefusal } from "@/lib/domain/team-schema";
import { AppError } from "@/server/core/errors";
import { bookedRanges, gpuShareOfIds } from "@/server/bookings/rules/booked-ranges";
import { countHeld, type GpuRange, gpuHoursOf, peakWindowGpuHours, WEEK_MS } from "@/server/bookings/rules/gpu-hours";
import { describeWindows, firstInstantOutside, nextInstantInside } from "@/server/bookings/rules/host-rules";
import { ruleFor } from "@/lib/domain/host-rule-match";
import { personSubject, readLimits, teamSubject } from "@/server/bookings/rules/limits-store";
import type { Tx } from "@/server/bookings/store/booking-transaction";
import { peakConcurrent } from "@/server/bookings/store/occupancy";

/** Who a booking counts for: the person, and the team it is for (if any). */
export interface BookingScope {
  userId: string;
  username: string;
  team: { id: string; name: string } | null;
}

/** One limit in force: its value, and whether it is the team's (counted over the team's bookings) or the person's own. */
interface InForce<T> {
  value: T;
  scope: "team" | "person";
  subject: string;
}

export type EffectiveLimits = { [K in LimitKind]: InForce<NonNullable<Limits[K]>> | null };

/** A 409 that names the limit, what is used and when room frees up; `quota` carries the numbers for pages. */
export class QuotaExceededError extends AppError {
  constructor(
    message: string,
    readonly quota: QuotaRefusal,
  ) {
    super("quota_exceeded", message);
  }

  override toJSON(): QuotaExceededBody {
    return { error: { code: "quota_exceeded", message: this.message, quota: this.quota } };
  }
}

/** The limits that apply: per kind, the person's own where they have one, else the team's. */
export async function effectiveLimits(tx: Tx, scope: BookingScope): Promise<EffectiveLimits> {
  const subjects = [personSubject(scope.userId), ...(scope.team ? [teamSubject(scope.team.id)] : [])];
  const stored = await readLimits(tx, subjects);
  const person = stored.get(personSubject(scope.userId));
  const team = scope.team ? stored.get(teamSubject(scope.team.id)) : undefined;
  const pick = <K extends LimitKind>(kind: K): InForce<NonNullable<Limits[K]>> | null => {
    const own = person?.[kind];
    if (own !== null && own !== undefined) return { value: own as NonNullable<Limits[K]>, scope: "person", subject: scope.username };
    const shared = team?.[kind];
    if (shared !== null && shared !== undefined && scope.team) return { value: shared as NonNullable<Limits[K]>, scope: "team", subject: scope.team.name };
    return null;
  };
  return { maxGpus: pick("maxGpus"), gpuHoursPer7Days: pick("gpuHoursPer7Days"), maxBookingMinutes: pick("maxBookingMinutes"), hosts: pick("hosts") };
}

function ownerOf(scope: BookingScope, inForce: InForce<unknown>) {
  return inForce.scope === "team" && scope.team ? { teamId: scope.team.id } : { userId: scope.userId };
}

const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
const round1 = (value: number) => Math.round(value * 10) / 10;

/** A booking (or the added part of an extension) to check against the limits. */
export interface LimitedBooking {
  hostName: string;
  startMs: number;
  endMs: number;
  /** Units asked for (whole GPUs or MIG slices): what the GPUs-at-once limit counts. */
  gpus: number;
  /** The units' ids: their shares of a GPU (lib/domain/gpu-share.ts) are what the GPU-hours limit counts. */
  gpuIds: readonly string[];
  /** The whole booking's length, for the longest-booking limit (an extension's total). */
  totalMinutes: number;
}

/**
 * Refuses (409 quota_exceeded) a booking that would go over a limit. Runs
 * inside the booking transaction, after the lock, so that two bookings
 * that together exceed a limit cannot both pass.
 */
export async function checkBookingLimits(tx: Tx, scope: BookingScope, booking: LimitedBooking, limits?: EffectiveLimits): Promise<void> {
  const inForce = limits ?? (await effectiveLimits(tx, scope));
  const hostRefusal = refuseHost(inForce, booking.hostName, booking.startMs, booking.endMs);
  if (hostRefusal) throw hostRefusal;

  const longest = inForce.maxBookingMinutes;
  if (longest && booking.totalMinutes > longest.value) {
    throw new QuotaExceededError(
      `${longest.subject}: bookings last at most ${formatDurationMinutes(longest.value)}; this one would last ${formatDurationMinutes(booking.totalMinutes)}`,
      { limit: "maxBookingMinutes", scope: longest.scope, subject: longest.subject, used: booking.totalMinutes, max: longest.value, requested: booking.totalMinutes, freesAt: null },
    );
  }

  const atOnce = inForce.maxGpus;
  if (atOnce) {
    const ranges = await bookedRanges(tx, ownerOf(scope, atOnce), booking.startMs, booking.endMs);
    const held = countHeld(ranges, booking.startMs, booking.endMs).atOnce;
    if (held + booking.gpus > atOnce.value) {
      const freesAt = roomFreesAt(ranges, booking, atOnce.value);
      const need = held + booking.gpus - atOnce.value;
      const when = freesAt === null ? "" : `; ${need} free${need === 1 ? "s" : ""} up at ${utc(freesAt)}`;
      throw new QuotaExceededError(`${atOnce.subject}: ${held} of ${atOnce.value} GPUs at once${when} (this booking asks for ${booking.gpus})`, {
        limit: "maxGpus",
        scope: atOnce.scope,
        subject: atOnce.subject,
        used: held,
        max: atOnce.value,
        requested: booking.gpus,
        freesAt: freesAt === null ? null : new Date(freesAt).toISOString(),
      });
    }
  }

  const weekly = inForce.gpuHoursPer7Days;
  if (weekly) {
    const ranges = await bookedRanges(tx, ownerOf(scope, weekly), booking.startMs - WEEK_MS, booking.endMs + WEEK_MS);
    // Four 1g.10gb slices of an H100 add 4/7 of a GPU-hour an hour, not 4.
    const share = await gpuShareOfIds(tx, booking.gpuIds);
    const asked = { startMs: booking.startMs, endMs: booking.endMs, gpus: share };
    const peak = countHeld([...ranges, asked], booking.startMs, booking.endMs);
    if (peak.gpuHours7Days > weekly.value + 1e-9) {
      const requested = gpuHoursOf([asked], booking.startMs, booking.endMs);
      const used = peak.gpuHours7Days - gpuHoursOf([asked], peak.windowEndMs - WEEK_MS, peak.windowEndMs);
      const freesAt = requested <= weekly.value ? weeklyRoomAt(ranges, asked, weekly.value) : null;
      const when = freesAt === null ? "" : `; room for it from ${utc(freesAt)}`;
      throw new QuotaExceededError(
        `${weekly.subject}: ${round1(used)} of ${weekly.value} GPU-hours booked in 7 days (this booking adds ${round1(requested)})${when}`,
        {
          limit: "gpuHoursPer7Days",
          scope: weekly.scope,
          subject: weekly.subject,
          used: round1(used),
          max: weekly.value,
          requested: round1(requested),
          freesAt: freesAt === null ? null : new Date(freesAt).toISOString(),
        },
      );
    }
  }
}

/**
 * The earliest start at or after the asked one from which the booking,
 * moved there with its length, fits the GPUs-at-once limit: only the
 * asked start and the ends of the bookings counted can be that instant.
 */
function roomFreesAt(ranges: GpuRange[], booking: LimitedBooking, max: number): number | null {
  const length = booking.endMs - booking.startMs;
  const starts = [booking.startMs, ...ranges.map((range) => range.endMs).filter((end) => end > booking.startMs)].sort((a, b) => a - b);
  for (const start of starts) {
    const clipped = ranges.map((range) => ({ startMs: Math.max(range.startMs, start), endMs: Math.min(range.endMs, start + length) }));
    if (peakConcurrent(clipped) + booking.gpus <= max) return start;
  }
  return null;
}

/** The earliest start (among the instants where counted hours leave the window) from which the booking fits the weekly GPU-hours. */
function weeklyRoomAt(ranges: GpuRange[], booking: GpuRange, max: number): number | null {
  const length = booking.endMs - booking.startMs;
  const starts = [...new Set(ranges.flatMap((range) => [range.endMs, range.endMs + WEEK_MS, range.startMs + WEEK_MS]))].filter((start) => start > booking.startMs).sort((a, b) => a - b);
  for (const start of starts.slice(0, 200)) {
    const moved = { startMs: start, endMs: start + length, gpus: booking.gpus };
    if (peakWindowGpuHours([...ranges, moved], WEEK_MS, moved.startMs, moved.endMs).hours <= max + 1e-9) return start;
  }
  return null;
}

/** A request for "N GPUs" that waits in the queue (server/waitlist/). */
export interface QueuedRequest {
  /** Null: any host. */
  hostName: string | null;
  gpus: number;
  minutes: number;
}

/**
 * The refusal for a queued request that no amount of waiting lets fit:
 * more GPUs than the GPUs-at-once limit, longer than the longest booking,
 * more GPU-hours than 7 days allow, or a host the limits never allow.
 * Null when room can free up (those are judged when it is granted).
 */
export function refuseNeverFitting(limits: EffectiveLimits, request: QueuedRequest): QuotaExceededError | null {
  const never = { freesAt: null };
  const atOnce = limits.maxGpus;
  if (atOnce && request.gpus > atOnce.value) {
    return new QuotaExceededError(`${atOnce.subject}: at most ${atOnce.value} GPUs at once; this request asks for ${request.gpus}, so it would wait forever`, {
      limit: "maxGpus",
      scope: atOnce.scope,
      subject: atOnce.subject,
      used: null,
      max: atOnce.value,
      requested: request.gpus,
      ...never,
    });
  }
  const longest = limits.maxBookingMinutes;
  if (longest && request.minutes > longest.value) {
    return new QuotaExceededError(`${longest.subject}: bookings last at most ${formatDurationMinutes(longest.value)}; this request asks for ${formatDurationMinutes(request.minutes)}`, {
      limit: "maxBookingMinutes",
      scope: longest.scope,
      subject: longest.subject,
      used: null,
      max: longest.value,
      requested: request.minutes,
      ...never,
    });
  }
  const weekly = limits.gpuHoursPer7Days;
  const asked = (request.gpus * request.minutes) / 60;
  if (weekly && asked > weekly.value + 1e-9) {
    return new QuotaExceededError(`${weekly.subject}: at most ${weekly.value} GPU-hours booked in 7 days; this request alone asks for ${round1(asked)}`, {
      limit: "gpuHoursPer7Days",
      scope: weekly.scope,
      subject: weekly.subject,
      used: null,
      max: weekly.value,
      requested: round1(asked),
      ...never,
    });
  }
  const hosts = limits.hosts;
  // A host with no rule is refused whatever the time (refuseHost reads the times only for a rule's windows).
  if (hosts && request.hostName !== null && !ruleFor(hosts.value, request.hostName)) return refuseHost(limits, request.hostName, 0, 0);
  if (hosts && hosts.value.length === 0) {
    return new QuotaExceededError(`${hosts.subject} may not book any host`, { limit: "hosts", scope: hosts.scope, subject: hosts.subject, used: null, max: null, requested: null, ...never });
  }
  return null;
}

/** The refusal for a host the limits do not allow over [startMs, endMs); null when it is allowed. */
export function refuseHost(limits: EffectiveLimits, hostName: string, startMs: number, endMs: number): QuotaExceededError | null {
  const hosts = limits.hosts;
  if (!hosts) return null;
  const rule: HostRule | null = ruleFor(hosts.value, hostName);
  const base = { limit: "hosts" as const, scope: hosts.scope, subject: hosts.subject, used: null, max: null, requested: null };
  if (!rule) {
    const allowed = hosts.value.map((entry) => entry.host).join(", ") || "none";
    return new QuotaExceededError(`${hosts.subject} may not book ${hostName} (hosts allowed: ${allowed})`, { ...base, freesAt: null });
  }
  const outside = firstInstantOutside(rule, startMs, endMs);
  if (outside === null) return null;
  const next = outside > startMs ? null : nextInstantInside(rule, startMs);
  const when = outside > startMs ? `; this booking runs past ${utc(outside)}` : next !== null ? `; from ${utc(next)}` : "";
  return new QuotaExceededError(`${hosts.subject} may book ${hostName} only ${describeWindows(rule)}${when}`, {
    ...base,
    freesAt: next === null ? null : new Date(next).toISOString(),
  });
}
