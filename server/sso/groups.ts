import type { Role } from "@/server/access/principal";

export interface GroupRules {
  /** Members of any of these are admins, the others members; empty: the directory does not decide roles. */
  adminGroups: string[];
  teamGroups: { group: string; team: string }[];
}

/**
 * The names a directory group answers to: the value itself, and its short
 * name: `cn=gpu-admins,ou=groups,dc=lab` (an LDAP DN, as memberOf holds it)
 * answers to `gpu-admins`, `/lab/gpu-admins` (a Keycloak group path) to
 * `gpu-admins`. Compared without case, as directories do.
 */
export function groupNames(value: string): string[] {
  const full = value.trim().toLowerCase();
  if (!full) return [];
  const names = new Set([full]);
  const rdn = /^[a-z][a-z0-9-]*=((?:\\.|[^,\\])+)/i.exec(full);
  if (rdn && full.includes("=")) names.add(rdn[1].replace(/\\(.)/g, "$1"));
  if (full.startsWith("/")) names.add(full.split("/").filter(Boolean).pop() ?? full);
  return [...names];
}

/**
 * What a person's directory groups make them in gpudesk: a role (null when
 * no admin groups are configured, so that roles stay as admins set them)
 * and the names of the teams they belong to.
 */
export function mapGroups(groups: readonly string[], rules: GroupRules): { role: Role | null; teams: string[] } {
  const held = new Set(groups.flatMap(groupNames));
  // A configured DN or path must match in full; a short name matches any group of that name.
  const holds = (group: string) => held.has(group.trim().toLowerCase());
  const role: Role | null = rules.adminGroups.length === 0 ? null : rules.adminGroups.some(holds) ? "admin" : "member";
  const teams = [...new Set(rules.teamGroups.filter((rule) => holds(rule.group)).map((rule) => rule.team))];
  return { role, teams };
}
