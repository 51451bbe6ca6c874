import { log } from "@/server/log";

export interface SignInRefusal {
  source: "oidc" | "ldap";
  /** The name typed in or claimed, as given (cut short). */
  username: string;
  reason: "wrong_password" | "not_registered" | "invalid_username" | "no_username_claim";
  detail?: string;
}

/**
 * The one place a refused directory sign-in is recorded. Logged today; the
 * audit log's sign-in failures (issue 25, writeAudit widened) are meant to
 * be written from here too.
 */
export function recordSignInRefusal(refusal: SignInRefusal): void {
  const who = JSON.stringify(refusal.username.slice(0, 64));
  log.warn(`sso: ${refusal.source} sign-in of ${who} refused (${refusal.reason})${refusal.detail ? `: ${refusal.detail}` : ""}`);
}
