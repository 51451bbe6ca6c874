import type { HostRule } from "@/lib/domain/team-schema";

/**
 * The rule of a team's or person's host list that decides a host: rules are
 * read in order and the first whose pattern matches decides ("*" matches any
 * run of characters); none matching: the host may not be booked. The
 * booking transaction (server/bookings/rules/) and the booking form ask this.
 */
export function ruleFor(rules: readonly HostRule[], hostName: string): HostRule | null {
  return rules.find((rule) => matches(rule.host, hostName)) ?? null;
}

function matches(pattern: string, name: string): boolean {
  const regex = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
  return regex.test(name);
}
