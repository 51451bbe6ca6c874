import { env } from "@/server/core/env";
import { log } from "@/server/core/log";
import { syncDirectoryTeams } from "@/server/teams/team-service";

/**
 * Puts a person in the teams their directory groups name
 * (GPUDESK_SSO_TEAM_GROUPS), and out of the mapped teams they left.
 */
export async function applyDirectoryTeams(userId: string, teamNames: readonly string[]): Promise<void> {
  const managed = env().GPUDESK_SSO_TEAM_GROUPS.map((rule) => rule.team);
  if (managed.length === 0) return;
  const { added, removed } = await syncDirectoryTeams(userId, managed, teamNames);
  if (added.length + removed.length > 0) log.info(`sso: user ${userId} joined ${added.join(", ") || "no team"}, left ${removed.join(", ") || "no team"} (directory groups)`);
}
