import { env } from "@/server/core/env";

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

/** The refusals gpudesk itself sends back (server/sso/oidc.ts), in words a person can act on. */
const SSO_REFUSALS: Record<string, string> = {
  signup_disabled: "Single sign-on worked, but gpudesk has no account for you. Ask an admin to create it.",
  account_not_linked:
    "Single sign-on worked, but the gpudesk account of that name is not linked to your sign-in. An admin must link it (an account is never taken by its name alone).",
  domain_not_allowed: "Single sign-on worked, but your account's domain is not one this gpudesk accepts. Sign in with your lab account, or ask an admin.",
  email_not_verified: "Single sign-on worked, but the provider has not verified your e-mail address. Verify it there, then sign in again.",
  invalid_username: "Single sign-on worked, but your username cannot be used in gpudesk (letters, digits, '_' and '.'). Ask an admin.",
  no_username_claim: "Single sign-on worked, but the provider sent no username. Ask an admin to look at the server log.",
  unavailable: "Single sign-on worked, but your account could not be created. Ask an admin to create it.",
};

/**
 * What the sign-in page says when single sign-on came back with ?error=
 * (better-auth's codes, lower case). Unknown codes are named, never echoed
 * as text from the URL beyond letters and underscores.
 */
export function ssoErrorMessage(code: string | undefined): string | null {
  if (!code) return null;
  const clean = code.toLowerCase().replace(/[^a-z_]/g, "").slice(0, 60);
  const refusal = SSO_REFUSALS[clean];
  if (refusal) return refusal;
  if (clean.includes("banned")) return "This account is disabled. Ask an admin.";
  if (clean === "access_denied") return "Sign-in was cancelled at the provider.";
  return `Single sign-on did not complete (${clean || "unknown error"}). Try again, or ask an admin to look at the server log.`;
}
