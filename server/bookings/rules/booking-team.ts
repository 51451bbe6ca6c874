import type { Prisma, PrismaClient } from "@prisma/client";
import { AppError } from "@/server/core/errors";

type Client = Prisma.TransactionClient | PrismaClient;

export interface TeamRef {
  id: string;
  name: string;
}

/** The teams a person is in, the accounting one first. */
export async function teamsOf(client: Client, userId: string): Promise<(TeamRef & { accounting: boolean; lead: boolean })[]> {
  const rows = await client.teamMember.findMany({
    where: { userId },
    orderBy: [{ accounting: "desc" }, { createdAt: "asc" }],
    select: { accounting: true, lead: true, team: { select: { id: true, name: true } } },
  });
  return rows.map((row) => ({ ...row.team, accounting: row.accounting, lead: row.lead }));
}

/**
 * Each person's accounting team, the team their bookings that name none
 * count for (the accounting membership first, else the oldest; as
 * `bookingTeam` picks it): the one rule for the limits, the waitlist's
 * fair share and its request teams. People in no team are left out.
 */
export async function accountingTeams(client: Client, userIds: readonly string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const rows = await client.teamMember.findMany({
    where: { userId: { in: [...new Set(userIds)] } },
    orderBy: [{ accounting: "desc" }, { createdAt: "asc" }],
    select: { userId: true, teamId: true },
  });
  const teamOf = new Map<string, string>();
  for (const row of rows) if (!teamOf.has(row.userId)) teamOf.set(row.userId, row.teamId);
  return teamOf;
}

/**
 * The team a booking is for: the one named (by name or id; the person must
 * be in it), else their accounting team, else none.
 */
export async function bookingTeam(client: Client, userId: string, named: string | undefined | null): Promise<TeamRef | null> {
  const teams = await teamsOf(client, userId);
  if (named === undefined || named === null) return teams[0] ?? null;
  const team = teams.find((candidate) => candidate.name === named || candidate.id === named);
  if (!team) {
    const yours = teams.map((candidate) => candidate.name).join(", ") || "none";
    throw new AppError("bad_request", `You are not in a team named ${named} (your teams: ${yours})`, { team: `You are not in ${named}` });
  }
  return { id: team.id, name: team.name };
}

/** Team names by id, for pages that show a booking's team. */
export async function teamNames(client: Client, ids: (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await client.team.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true } });
  return new Map(rows.map((row) => [row.id, row.name]));
}
