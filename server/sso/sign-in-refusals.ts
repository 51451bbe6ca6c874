import { normalizeUsername } from "@/lib/domain/username";
import { recordAudit } from "@/server/access/audit-log";
import { log } from "@/server/core/log";

export type SignInRefusalReason =
  | "wrong_password"
  | "not_registered"
  | "not_linked"
  | "unavailable"
  | "invalid_username"
  | "no_username_claim"
  | "domain_not_allowed"
  | "email_not_verified";

export interface SignInRefusal {
  source: "oidc" | "ldap";
  /** The name typed in or claimed, as given (cut short). */
  username: string;
  reason: SignInRefusalReason;
  detail?: string;
}

/**
 * The one place a refused directory sign-in is recorded: the server log and
 * the audit log's sign-in failures, as a refused local password is
 * (server/auth/better-auth.ts), with where it came from and why.
 */
export async function recordSignInRefusal(refusal: SignInRefusal): Promise<void> {
  const who = JSON.stringify(refusal.username.slice(0, 64));
  log.warn(`sso: ${refusal.source} sign-in of ${who} refused (${refusal.reason})${refusal.detail ? `: ${refusal.detail}` : ""}`);
  const tried = normalizeUsername(refusal.username).slice(0, 64) || "(none)";
  await recordAudit({
    actorId: null,
    action: "signin.failure",
    entityType: "signin",
    entityId: tried,
    via: "web",
    after: { username: tried, source: refusal.source, reason: refusal.reason },
  }).catch((error: unknown) => log.error(`could not record a refused sign-in in the audit log: ${error instanceof Error ? error.message : String(error)}`));
}
