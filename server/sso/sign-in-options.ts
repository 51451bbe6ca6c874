import { env } from "@/server/env";

export interface SignInOptions {
  /** The OIDC button's provider name ("Sign in with …"); null without OIDC. */
  oidcName: string | null;
  /** Whether the username and password form is offered: LDAP, or gpudesk's own passwords. */
  passwordForm: boolean;
  /** LDAP is set: the password is the directory's. */
  directoryPasswords: boolean;
}

/** What the sign-in page offers, from the configuration. */
export function signInOptions(): SignInOptions {
  const config = env();
  const oidc = Boolean(config.GPUDESK_OIDC_ISSUER && config.GPUDESK_OIDC_CLIENT_ID);
  const ldap = Boolean(config.GPUDESK_LDAP_URL);
  return {
    oidcName: oidc ? config.GPUDESK_OIDC_NAME : null,
    passwordForm: ldap || config.GPUDESK_LOCAL_PASSWORDS,
    directoryPasswords: ldap,
  };
}

/**
 * What the sign-in page says when single sign-on came back with ?error=
 * (better-auth's codes, lower case). Unknown codes are named, never echoed
 * as text from the URL beyond letters and underscores.
 */
export function ssoErrorMessage(code: string | undefined): string | null {
  if (!code) return null;
  const clean = code.toLowerCase().replace(/[^a-z_]/g, "").slice(0, 60);
  if (clean === "signup_disabled") {
    return "Single sign-on worked, but gpudesk has no account for you (or your username cannot be used here). Ask an admin to create it.";
  }
  if (clean.includes("banned")) return "This account is disabled. Ask an admin.";
  if (clean === "access_denied") return "Sign-in was cancelled at the provider.";
  return `Single sign-on did not complete (${clean || "unknown error"}). Try again, or ask an admin to look at the server log.`;
}
