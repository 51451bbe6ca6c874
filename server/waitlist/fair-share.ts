import type { Prisma, PrismaClient } from "@prisma/client";
import { ordinal } from "@/lib/domain/waitlist-schema";
import { bookedRangesBy } from "@/server/bookings/rules/booked-ranges";
import { gpuHoursOf, HOUR_MS, WEEK_MS } from "@/server/bookings/rules/gpu-hours";
import { accountingTeams } from "@/server/bookings/rules/booking-team";

type Client = Prisma.TransactionClient | PrismaClient;

/**
 * Fair share in the queue. Each team's recent use is its booked GPU-hours
 * with a half-life of 7 days; its share of the fleet is its weight (1 by
 * default) over all teams' weights. A team that used exactly its share
 * stands at 100 %. Requests are served lowest first; waiting lowers the
 * figure by 100 points every WAIT_WORTH_MS, so a request of the busiest
 * team still comes first after a bounded wait. Equal figures: arrival order.
 */

export const HALF_LIFE_MS = WEEK_MS;
/** Older bookings weigh less than 1/16: not worth reading. */
const LOOKBACK_MS = 4 * HALF_LIFE_MS;
/** Waiting this long is worth 100 % of a share. */
export const WAIT_WORTH_MS = 4 * HOUR_MS;
/** People in no team queue as one group of this name, with a share of 1. */
export const NO_TEAM = "no team";

export interface QueuedRequest {
  id: string;
  createdAtMs: number;
  /** The team it books for; null: none. */
  teamKey: string | null;
}

export interface TeamStanding {
  name: string;
  share: number;
  /** Decayed GPU-hours. */
  usedGpuHours: number;
}

export interface Ranked<T extends QueuedRequest> {
  request: T;
  /** Percent of its share the team used (decayed); null when nobody used anything yet. */
  usedPctOfShare: number | null;
  teamName: string;
  priority: number;
  waitedMs: number;
}

/** Percent of its share each team used: (its decayed hours / everyone's) / (its weight / all weights). */
export function shareUse(standings: Map<string | null, TeamStanding>): Map<string | null, number | null> {
  const total = [...standings.values()].reduce((sum, team) => sum + team.usedGpuHours, 0);
  const weights = [...standings.values()].reduce((sum, team) => sum + team.share, 0);
  const result = new Map<string | null, number | null>();
  for (const [key, team] of standings) {
    result.set(key, total > 0 && weights > 0 ? ((team.usedGpuHours / total) / (team.share / weights)) * 100 : null);
  }
  return result;
}

/** The queue in order of service, with each request's figure and why. */
export function rankByFairShare<T extends QueuedRequest>(requests: readonly T[], standings: Map<string | null, TeamStanding>, nowMs: number): Ranked<T>[] {
  const use = shareUse(standings);
  const anyUse = [...use.values()].some((pct) => pct !== null);
  return requests
    .map((request) => {
      const waitedMs = Math.max(0, nowMs - request.createdAtMs);
      // A group with no standing (no bookings lately, e.g. people in no team) used 0 % of a share.
      const pct = use.has(request.teamKey) ? (use.get(request.teamKey) ?? null) : anyUse ? 0 : null;
      return {
        request,
        usedPctOfShare: pct,
        teamName: standings.get(request.teamKey)?.name ?? NO_TEAM,
        priority: (pct ?? 0) - (100 * waitedMs) / WAIT_WORTH_MS,
        waitedMs,
      };
    })
    .sort((a, b) => a.priority - b.priority || a.request.createdAtMs - b.request.createdAtMs || a.request.id.localeCompare(b.request.id));
}

/** "2nd — vision used 130 % of its share this week; waiting 3 h raised it". */
export function describeRank(position: number, ranked: Ranked<QueuedRequest>): string {
  const parts = [ordinal(position)];
  if (ranked.usedPctOfShare === null) return `${parts[0]} — in order of arrival (no team used GPUs lately)`;
  // A person in no team is not a team's member: the figure is theirs, said without team words.
  const pct = Math.round(ranked.usedPctOfShare);
  let why = ranked.request.teamKey === null ? `GPU use this week ${pct} % of a fair share` : `${ranked.teamName} used ${pct} % of its share this week`;
  const hours = ranked.waitedMs / HOUR_MS;
  if (hours >= 1) why += `; waiting ${Math.floor(hours)} h raised it`;
  return `${parts[0]} — ${why}`;
}

/**
 * Every team's standing now, from the bookings of the last four half-lives
 * (gpuHoursOf with decay: the same GPU-hours the quotas and the report count).
 * A booking that named no team counts for its person's accounting team, as
 * for the limits (made before joining, or without naming one); the "no
 * team" group has those of people in no team.
 */
export async function teamStandings(client: Client, nowMs: number): Promise<Map<string | null, TeamStanding>> {
  const [teams, byTeam] = await Promise.all([
    client.team.findMany({ select: { id: true, name: true, share: true } }),
    bookedRangesBy(client, "countsForTeam", nowMs - LOOKBACK_MS, nowMs),
  ]);
  const standings = new Map<string | null, TeamStanding>();
  const known = new Set(teams.map((team) => team.id));
  for (const team of teams) {
    standings.set(team.id, { name: team.name, share: team.share, usedGpuHours: gpuHoursOf(byTeam.get(team.id) ?? [], nowMs - LOOKBACK_MS, nowMs, HALF_LIFE_MS) });
  }
  // Bookings of deleted teams, and those for none, count for the group of people without a team.
  const rest = [...byTeam.entries()].filter(([key]) => key === null || !known.has(key)).flatMap(([, ranges]) => ranges);
  // The group weighs in (share 1) only once it used something: a lab where everyone is in a team has no such group.
  if (rest.length > 0) standings.set(null, { name: NO_TEAM, share: 1, usedGpuHours: gpuHoursOf(rest, nowMs - LOOKBACK_MS, nowMs, HALF_LIFE_MS) });
  return standings;
}

/** The team each waiting request books for: the one it named, else its person's accounting team (null: none). */
export async function requestTeams(client: Client, rows: { id: string; userId: string; teamId: string | null }[]): Promise<Map<string, string | null>> {
  const teamOf = await accountingTeams(client, rows.filter((row) => row.teamId === null).map((row) => row.userId));
  return new Map(rows.map((row) => [row.id, row.teamId ?? teamOf.get(row.userId) ?? null]));
}

/** Waiting rows in order of service, each with why it stands where it does. */
export async function orderByFairShare<T extends { id: string; userId: string; teamId: string | null; createdAt: Date }>(
  client: Client,
  rows: T[],
  nowMs: number,
): Promise<{ row: T; reason: string; teamName: string | null }[]> {
  if (rows.length === 0) return [];
  const [standings, teams] = await Promise.all([teamStandings(client, nowMs), requestTeams(client, rows)]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const ranked = rankByFairShare(
    rows.map((row) => ({ id: row.id, createdAtMs: row.createdAt.getTime(), teamKey: teams.get(row.id) ?? null })),
    standings,
    nowMs,
  );
  return ranked.map((entry, i) => ({
    row: byId.get(entry.request.id) as T,
    reason: describeRank(i + 1, entry),
    teamName: entry.request.teamKey === null ? null : entry.teamName,
  }));
}
