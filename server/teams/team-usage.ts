import type { PersonTeamUsage, TeamUsage, TeamUsageReport } from "@/lib/domain/team-usage";
import { db } from "@/server/core/db";
import { AppError } from "@/server/core/errors";
import { bookedRanges } from "@/server/bookings/rules/booked-ranges";
import { gpuHoursOf } from "@/server/bookings/rules/gpu-hours";
import type { Actor } from "@/server/access/actor";
import { unbookedUseByPerson } from "@/server/history/unbooked-use";
import { can } from "@/server/access/permissions";

export interface TeamUsageQuery {
  fromMs: number;
  toMs: number;
  nowMs: number;
  minuteRetentionMs: number;
  /** One team (name or id); absent: every team the viewer may see. */
  team?: string;
}

/**
 * Usage per team and per person: GPU-hours booked for each team (gpuHoursOf
 * over the bookings, the figure the quotas count) and use without a booking
 * by the person the live view named. Use without a booking counts for the
 * person's accounting team. Admins see every team; a lead sees theirs.
 */
export async function getTeamUsage(viewer: Actor, query: TeamUsageQuery): Promise<TeamUsageReport> {
  const client = db();
  const led = can.seeEveryTeamsUsage(viewer)
    ? null
    : new Set((await client.teamMember.findMany({ where: { userId: viewer.id, lead: true }, select: { teamId: true } })).map((row) => row.teamId));
  if (led && led.size === 0) throw new AppError("forbidden", "Only an admin or a team lead can see a team's usage");
  const all = await client.team.findMany({
    orderBy: { name: "asc" },
    select: { id: true, name: true, share: true, members: { select: { userId: true, lead: true, accounting: true } } },
  });
  const named = query.team === undefined ? all : all.filter((team) => team.name === query.team || team.id === query.team);
  if (query.team !== undefined && named.length === 0) throw new AppError("not_found", `There is no team named ${query.team}`);
  const visible = led ? named.filter((team) => led.has(team.id)) : named;
  if (query.team !== undefined && visible.length === 0) throw new AppError("forbidden", `You do not lead ${query.team}`);

  const untilMs = Math.min(query.toMs, query.nowMs);
  const unbooked = await unbookedUseByPerson(query);
  const unbookedOf = new Map(unbooked.filter((row) => row.userId !== null).map((row) => [row.userId as string, row.usedWithoutBookingGpuHours]));
  const userIds = [...new Set(visible.flatMap((team) => team.members.map((member) => member.userId)))];
  const users = new Map((await client.user.findMany({ where: { id: { in: userIds } }, select: { id: true, username: true, name: true } })).map((user) => [user.id, user]));

  const teams: TeamUsage[] = [];
  for (const team of visible) {
    const members: PersonTeamUsage[] = [];
    for (const member of team.members) {
      const user = users.get(member.userId);
      if (!user) continue;
      const ranges = await bookedRanges(client, { userId: member.userId, teamId: team.id }, query.fromMs, untilMs);
      members.push({
        userId: user.id,
        username: user.username,
        name: user.name,
        lead: member.lead,
        bookedGpuHours: gpuHoursOf(ranges, query.fromMs, untilMs),
        usedWithoutBookingGpuHours: member.accounting ? (unbookedOf.get(user.id) ?? 0) : 0,
      });
    }
    members.sort((a, b) => b.bookedGpuHours + b.usedWithoutBookingGpuHours - (a.bookedGpuHours + a.usedWithoutBookingGpuHours) || (a.username ?? "").localeCompare(b.username ?? ""));
    const teamRanges = await bookedRanges(client, { teamId: team.id }, query.fromMs, untilMs);
    teams.push({
      teamId: team.id,
      name: team.name,
      share: team.share,
      bookedGpuHours: gpuHoursOf(teamRanges, query.fromMs, untilMs),
      usedWithoutBookingGpuHours: members.reduce((sum, member) => sum + member.usedWithoutBookingGpuHours, 0),
      members,
    });
  }
  // A lead sees their members' use without a booking, not everyone's.
  const shownPeople = led ? new Set(visible.flatMap((team) => team.members.map((member) => member.userId))) : null;
  return { fromMs: query.fromMs, toMs: query.toMs, teams, unbooked: shownPeople ? unbooked.filter((row) => row.userId !== null && shownPeople.has(row.userId)) : unbooked };
}
