import { limitsSchema, type HostRule } from "@/lib/domain/team-schema";

/**
 * Host rules as the limits form edits them (a row per host pattern, a line
 * per weekly window, days as boxes, times as time fields), and back to the
 * API's `hosts` list, whose shape stays what it was: the form is another
 * way to write the same JSON, checked by the same schema.
 */

export interface WindowDraft {
  days: number[];
  /** "HH:MM"; empty: from midnight. */
  from: string;
  /** "HH:MM"; empty: to the end of the day. */
  to: string;
}

export interface HostRuleDraft {
  host: string;
  /** Empty: any time. */
  windows: WindowDraft[];
  /** Empty: UTC. */
  timeZone: string;
}

/** Null: every host (no rule at all). */
export type HostRulesDraft = HostRuleDraft[] | null;

export const WEEKDAYS_SHORT = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;

export function draftFromHostRules(rules: readonly HostRule[] | null): HostRulesDraft {
  if (rules === null) return null;
  return rules.map((rule) => ({
    host: rule.host,
    windows: (rule.windows ?? []).map((window) => ({ days: [...window.days], from: window.from === "00:00" ? "" : window.from, to: window.to === "24:00" ? "" : window.to })),
    timeZone: rule.timeZone ?? "",
  }));
}

/** The API's list for a draft: empty times and zone left out, so that the schema's defaults (whole day, UTC) apply. */
export function hostRulesFromDraft(draft: HostRulesDraft): HostRule[] | null {
  if (draft === null) return null;
  return draft.map((rule) => {
    const hostRule: HostRule = { host: rule.host.trim() };
    if (rule.windows.length > 0) {
      hostRule.windows = rule.windows.map((window) => ({
        days: [...window.days].sort((a, b) => a - b),
        from: window.from || "00:00",
        to: window.to || "24:00",
      }));
    }
    if (rule.timeZone.trim()) hostRule.timeZone = rule.timeZone.trim();
    return hostRule;
  });
}

/**
 * What is wrong with a draft, by the API's own schema, keyed as the
 * server's field errors are ("hosts.0.windows.1.to"), so that the form
 * shows either next to the field it is about.
 */
export function hostRulesErrors(draft: HostRulesDraft): Record<string, string> {
  const parsed = limitsSchema.shape.hosts.safeParse(hostRulesFromDraft(draft));
  if (parsed.success) return {};
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const key = ["hosts", ...issue.path.map(String)].join(".");
    errors[key] ??= issue.message;
  }
  return errors;
}
