import { log } from "@/server/log";

/**
 * Puts a person in the teams their directory groups name. Teams are being
 * built (issue 24) at the same time as single sign-on: until this calls
 * their team-membership function, the mapping is only logged, so an
 * operator sees what it would do. The one place to point at it.
 */
export async function applyDirectoryTeams(userId: string, teamNames: readonly string[]): Promise<void> {
  if (teamNames.length === 0) return;
  log.info(`sso: team mapping not applied (teams are not available yet): user ${userId} -> ${teamNames.join(", ")}`);
}
