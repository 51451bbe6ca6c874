import type { BetterAuthPlugin } from "better-auth";
import { APIError, type createAuthMiddleware } from "better-auth/api";
import { USERNAME_ERROR_CODES } from "better-auth/plugins/username";
import type { LoginClaim } from "@/server/auth/login-throttle";
import type { Env } from "@/server/core/env";

export type SignInContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

/**
 * What single sign-on adds to gpudesk's own sign-in: better-auth plugins (an
 * OpenID provider), the provider ids whose callbacks a browser may reach, and
 * the password form's answer from a directory (LDAP). server/sso/ provides
 * it and server/main/sign-in.ts plugs it in at start: auth/ never imports
 * sso/, which imports auth/ for accounts, tokens and the throttle.
 */
export interface SignInPlug {
  plugins(config: Env): BetterAuthPlugin[];
  providerIds: readonly string[];
  /** The password form's sign-in after the throttle: the session's answer, or null to let gpudesk's own password decide. */
  passwordSignIn(ctx: SignInContext, username: string, password: string, claim: LoginClaim | null): Promise<unknown>;
}

// Next's route bundles load their own copies of modules; the custom server
// plugs single sign-on in once, for both, through globalThis.
const shared = globalThis as unknown as { __gpudeskSignInPlug?: SignInPlug };

export function plugSignIn(plug: SignInPlug): void {
  shared.__gpudeskSignInPlug = plug;
}

/**
 * The plugged-in single sign-on. A process whose settings name a provider or
 * a directory but that has none plugged in stops here instead of quietly
 * signing in with local passwords only.
 */
export function signInPlug(config: Env): SignInPlug | null {
  const plug = shared.__gpudeskSignInPlug ?? null;
  if (!plug && (config.GPUDESK_LDAP_URL || config.GPUDESK_OIDC_ISSUER)) {
    throw new Error("Single sign-on is configured (GPUDESK_LDAP_URL or GPUDESK_OIDC_ISSUER) but not plugged in: call plugSingleSignOn() (server/main/sign-in.ts) at start");
  }
  return plug;
}

/**
 * The one answer to every refused sign-in on the password form (a wrong
 * password, an unknown or invalid name, an account the directory may not
 * take): better-auth's own refusal of a local password, built the same way
 * so that its body is the same byte for byte (its keys in its order), and
 * nobody can tell a local-only account from a name no one has. The audit
 * log holds why.
 */
export function invalidCredentials(): APIError {
  return APIError.from("UNAUTHORIZED", USERNAME_ERROR_CODES.INVALID_USERNAME_OR_PASSWORD);
}
